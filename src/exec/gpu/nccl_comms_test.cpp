// NcclComms against a table of fake NCCL functions: the error paths that a
// real NCCL reaches only on a broken GPU or network.
#include "exec/gpu/nccl_comms.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "exec/execution_backend.h"

using namespace reshardctl;
using namespace reshardctl::gpu;

namespace {

// What the fakes saw, and how they answer. Plain functions cannot capture, so
// one state for the whole file, reset by each test.
struct Fake {
  std::vector<std::string> calls;
  int failAtCall = -1;  // the n-th collective/p2p call (0-based) returns ncclInvalidArgument
  int collectiveCalls = 0;
  ncclResult_t groupEndResult = ncclSuccess;
  int groupEndSleepMs = 0;
  int aborts = 0;
  int destroys = 0;
  int nextComm = 1;
};
Fake fake;

Fake failingAtCall(int n) {
  Fake settings;
  settings.failAtCall = n;
  return settings;
}

Fake groupEndSleeping(int ms) {
  Fake settings;
  settings.groupEndSleepMs = ms;
  return settings;
}

ncclComm_t commNumber(int n) { return reinterpret_cast<ncclComm_t>(static_cast<intptr_t>(n)); }

ncclResult_t collective(const char* name) {
  fake.calls.emplace_back(name);
  return fake.collectiveCalls++ == fake.failAtCall ? ncclInvalidArgument : ncclSuccess;
}

NcclApi fakeTable(int version) {
  NcclApi api;
  api.version = version;
  api.getErrorString = [](ncclResult_t status) { return status == ncclInvalidArgument ? "invalid argument" : "other"; };
  api.getLastError = [](ncclComm_t) { return ""; };
  api.commInitAll = [](ncclComm_t* comms, int n, const int*) {
    for (int i = 0; i < n; ++i) comms[i] = commNumber(fake.nextComm++);
    return ncclSuccess;
  };
  api.commDestroy = [](ncclComm_t) {
    ++fake.destroys;
    return ncclSuccess;
  };
  api.commAbort = [](ncclComm_t) {
    ++fake.aborts;
    return ncclSuccess;
  };
  api.commGetAsyncError = [](ncclComm_t, ncclResult_t* async) {
    *async = ncclSuccess;
    return ncclSuccess;
  };
  api.groupStart = [] {
    fake.calls.emplace_back("groupStart");
    return ncclSuccess;
  };
  api.groupEnd = [] {
    fake.calls.emplace_back("groupEnd");
    if (fake.groupEndSleepMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(fake.groupEndSleepMs));
    return fake.groupEndResult;
  };
  api.allReduce = [](const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) {
    return collective("allReduce");
  };
  api.allGather = [](const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) {
    return collective("allGather");
  };
  if (version >= NCCL_VERSION(2, 28, 0))  // as the loader leaves an older library's table
    api.alltoAll = [](const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) {
      return collective("alltoAll");
    };
  api.send = [](const void* buffer, size_t, ncclDataType_t, int peer, ncclComm_t, cudaStream_t) {
    return collective(("send " + std::to_string(peer) + " @" + std::to_string(reinterpret_cast<uintptr_t>(buffer))).c_str());
  };
  api.recv = [](void* buffer, size_t, ncclDataType_t, int peer, ncclComm_t, cudaStream_t) {
    return collective(("recv " + std::to_string(peer) + " @" + std::to_string(reinterpret_cast<uintptr_t>(buffer))).c_str());
  };
  return api;
}

NcclCall callOf(CommKind kind, ncclComm_t comm) {
  NcclCall call;
  call.kind = kind;
  call.comm = comm;
  call.count = 8;
  return call;
}

// A watchdog that records instead of ending the process.
struct RecordingWatchdog {
  std::atomic<int> fired{0};
  std::string what;
  Watchdog dog;
  explicit RecordingWatchdog(double seconds)
      : dog(seconds, [this](const char* hung, double) {
          what = hung;
          ++fired;
        }) {}
};

// A fresh fake NCCL (answering as `settings` say), a watchdog of `limit`
// seconds, and a set holding `ranks` communicators from ncclCommInitAll.
struct FakeSet {
  NcclApi api;
  RecordingWatchdog dog;
  NcclComms comms;
  std::vector<ncclComm_t> world;
  FakeSet(int ranks, Fake settings, double limit = 60, int version = 22809)
      : api((fake = settings, fakeTable(version))), dog(limit), comms(api, dog.dog),
        world(comms.initAll(std::vector<int>(static_cast<size_t>(ranks), 0), "init")) {}
};

}  // namespace

TEST_CASE("nccl comms: a step's calls go out in one group, and teardown drains then destroys") {
  fake = Fake{};
  const NcclApi api = fakeTable(22809);
  RecordingWatchdog dog(60);
  bool drained = false;
  {
    NcclComms comms(api, dog.dog);
    const auto world = comms.initAll({0, 1}, "init");
    const size_t issued = comms.launchGroup([&](std::vector<NcclCall>& calls) {
      calls.push_back(callOf(CommKind::AllReduce, world[0]));
      calls.push_back(callOf(CommKind::AllReduce, world[1]));
    });
    CHECK(issued == 2);
    CHECK(fake.calls == std::vector<std::string>{"groupStart", "allReduce", "allReduce", "groupEnd"});
    CHECK(comms.launchGroup([](std::vector<NcclCall>&) {}) == 0);  // a local step: no group at all
    CHECK(fake.calls.size() == 4);
    comms.close([&] { drained = true; });
    CHECK(drained);
    CHECK(fake.destroys == 2);
  }
  CHECK(fake.aborts == 0);
  CHECK(dog.fired == 0);
}

TEST_CASE("nccl comms: an exception while building a step's calls never reaches NCCL") {
  FakeSet set(1, Fake{});
  auto& [api, dog, comms, world] = set;
  CHECK_THROWS_AS(comms.launchGroup([&](std::vector<NcclCall>& calls) {
    calls.push_back(callOf(CommKind::AllGather, world[0]));
    throw std::out_of_range("no communicator for that group");
  }),
                  std::out_of_range);
  CHECK(fake.calls.empty());  // no ncclGroupStart, so no partial group for ncclGroupEnd to launch
  CHECK_FALSE(comms.broken());
  CHECK(comms.launchGroup([&](std::vector<NcclCall>& calls) { calls.push_back(callOf(CommKind::AllGather, world[0])); }) == 1);
}

TEST_CASE("nccl comms: a call failing inside a group cancels the group and aborts every communicator") {
  FakeSet set(3, failingAtCall(1));
  auto& [api, dog, comms, world] = set;
  std::string message;
  try {
    comms.launchGroup([&](std::vector<NcclCall>& calls) {
      for (ncclComm_t comm : world) calls.push_back(callOf(CommKind::AllGather, comm));
    });
  } catch (const BackendError& error) {
    message = error.what();
  }
  CHECK(message == "NCCL error 'invalid argument' in ncclAllGather inside a group (the group was cancelled); "
                   "communicators aborted");
  // The third call was never issued; ncclGroupEnd ran once, to cancel.
  CHECK(fake.calls == std::vector<std::string>{"groupStart", "allGather", "allGather", "groupEnd"});
  CHECK(comms.broken());
  CHECK(fake.aborts == 3);
  CHECK_THROWS_WITH_AS(comms.launchGroup([](std::vector<NcclCall>&) {}),
                       doctest::Contains("aborted earlier"), BackendError);
  bool drained = false;
  comms.close([&] { drained = true; });
  CHECK_FALSE(drained);  // a broken set never waits for its streams
  CHECK(fake.destroys == 0);
}

TEST_CASE("nccl comms: ncclGroupEnd failing marks the set broken; teardown aborts instead of waiting") {
  fake = Fake{};
  fake.groupEndResult = ncclRemoteError;
  const NcclApi api = fakeTable(22809);
  RecordingWatchdog dog(60);
  bool drained = false;
  {
    NcclComms comms(api, dog.dog);
    const auto world = comms.initAll({0, 1}, "init");
    CHECK_THROWS_WITH_AS(comms.launchGroup([&](std::vector<NcclCall>& calls) {
      for (ncclComm_t comm : world) calls.push_back(callOf(CommKind::AllReduce, comm));
    }),
                         doctest::Contains("in ncclGroupEnd"), BackendError);
    CHECK(comms.broken());
    CHECK(fake.aborts == 2);
    comms.close([&] { drained = true; });
  }
  CHECK_FALSE(drained);
  CHECK(fake.destroys == 0);
  CHECK(fake.aborts == 2);  // once each, not again at destruction
}

TEST_CASE("nccl comms: a hung ncclGroupEnd is ended by the watchdog") {
  FakeSet set(1, groupEndSleeping(300), 0.05);
  auto& [api, dog, comms, world] = set;
  comms.launchGroup([&](std::vector<NcclCall>& calls) { calls.push_back(callOf(CommKind::AllReduce, world[0])); });
  CHECK(dog.fired == 1);  // the real action prints this and exits with code 2
  CHECK(dog.what == "ncclGroupEnd");
}

TEST_CASE("nccl comms: all_to_all is ncclAlltoAll from NCCL 2.28, send/recv pairs per peer before") {
  for (const int version : {22809, 22705}) {
    FakeSet set(1, Fake{}, 60, version);
    auto& [api, dog, comms, world] = set;
    NcclCall call = callOf(CommKind::AllToAll, world[0]);
    call.groupSize = 2;
    call.count = 3;
    call.elemBytes = 4;
    call.send = reinterpret_cast<const void*>(uintptr_t{1000});
    call.recv = reinterpret_cast<void*>(uintptr_t{2000});
    const size_t issued = comms.launchGroup([&](std::vector<NcclCall>& calls) { calls.push_back(call); });
    if (version >= 22800) {
      CHECK(issued == 1);
      CHECK(fake.calls == std::vector<std::string>{"groupStart", "alltoAll", "groupEnd"});
    } else {
      CHECK(issued == 4);  // blocks of 3 x 4 bytes, one to and one from each peer
      CHECK(fake.calls == std::vector<std::string>{"groupStart", "send 0 @1000", "recv 0 @2000", "send 1 @1012",
                                                   "recv 1 @2012", "groupEnd"});
    }
  }
}
