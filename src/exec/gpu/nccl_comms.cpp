#include "exec/gpu/nccl_comms.h"

#include <fmt/format.h>

#include "exec/execution_backend.h"

namespace reshardctl::gpu {

namespace {

const char* callName(CommKind kind) {
  switch (kind) {
    case CommKind::AllReduce: return "ncclAllReduce";
    case CommKind::ReduceScatter: return "ncclReduceScatter";
    case CommKind::AllGather: return "ncclAllGather";
    case CommKind::AllToAll: return "ncclAlltoAll";
    case CommKind::Send: return "ncclSend";
    case CommKind::Recv: return "ncclRecv";
  }
  return "an NCCL call";
}

}  // namespace

NcclComms::NcclComms(const NcclApi& api, Watchdog& watchdog)
    : api_(api), features_(ncclFeatures(api)), watchdog_(watchdog) {}

NcclComms::~NcclComms() {
  if (owned_.empty()) return;
  Armed guard(watchdog_, "ncclCommAbort (teardown)");
  abortEach();
}

void NcclComms::check(ncclResult_t status, const char* what, ncclComm_t comm) const {
  if (status != ncclSuccess) throw BackendError(fmt::format("NCCL error {} in {}", api_.errorText(status, comm), what));
}

std::vector<ncclComm_t> NcclComms::initAll(const std::vector<int>& devices, const char* what) {
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  ncclResult_t status = ncclSuccess;
  {
    Armed guard(watchdog_, what);
    status = api_.commInitAll(comms.data(), static_cast<int>(comms.size()), devices.data());
  }
  check(status, what);
  owned_.insert(owned_.end(), comms.begin(), comms.end());
  return comms;
}

ncclComm_t NcclComms::initRank(int nranks, const ncclUniqueId& id, int rank, const char* what) {
  ncclComm_t comm = nullptr;
  ncclResult_t status = ncclSuccess;
  {
    Armed guard(watchdog_, what);
    status = api_.commInitRank(&comm, nranks, id, rank);
  }
  check(status, what);
  owned_.push_back(comm);
  return comm;
}

ncclComm_t NcclComms::split(ncclComm_t parent, int color, int key, const char* what) {
  ncclComm_t comm = nullptr;
  ncclResult_t status = ncclSuccess;
  {
    Armed guard(watchdog_, what);
    status = api_.commSplit(parent, color, key, &comm, nullptr);
  }
  check(status, what, parent);
  if (comm != nullptr) owned_.push_back(comm);  // NCCL_SPLIT_NOCOLOR gives none
  return comm;
}

ncclResult_t NcclComms::issue(const NcclCall& call, size_t* issued) const noexcept {
  ++*issued;
  switch (call.kind) {
    case CommKind::AllReduce:
      return api_.allReduce(call.send, call.recv, call.count, call.type, call.op, call.comm, call.stream);
    case CommKind::ReduceScatter:
      return api_.reduceScatter(call.send, call.recv, call.count, call.type, call.op, call.comm, call.stream);
    case CommKind::AllGather: return api_.allGather(call.send, call.recv, call.count, call.type, call.comm, call.stream);
    case CommKind::Send: return api_.send(call.send, call.count, call.type, call.peer, call.comm, call.stream);
    case CommKind::Recv: return api_.recv(call.recv, call.count, call.type, call.peer, call.comm, call.stream);
    case CommKind::AllToAll: {
      if (features_.alltoAll) return api_.alltoAll(call.send, call.recv, call.count, call.type, call.comm, call.stream);
      // Before 2.28: the send/recv pattern of NCCL's p2p documentation, which
      // must sit in a group (it does: every call of a step is in one).
      --*issued;
      const size_t block = call.count * call.elemBytes;
      for (int peer = 0; peer < call.groupSize; ++peer) {
        const auto offset = static_cast<size_t>(peer) * block;
        ++*issued;
        const ncclResult_t sent = api_.send(static_cast<const std::byte*>(call.send) + offset, call.count, call.type,
                                            peer, call.comm, call.stream);
        if (sent != ncclSuccess) return sent;
        ++*issued;
        const ncclResult_t received =
            api_.recv(static_cast<std::byte*>(call.recv) + offset, call.count, call.type, peer, call.comm, call.stream);
        if (received != ncclSuccess) return received;
      }
      return ncclSuccess;
    }
  }
  return ncclInvalidArgument;
}

size_t NcclComms::launchGroup(const std::function<void(std::vector<NcclCall>&)>& build) {
  if (broken_) throw BackendError("the NCCL backend was aborted earlier: " + brokenReason_);
  std::vector<NcclCall> calls;
  build(calls);  // may throw: NCCL has seen nothing of this step
  if (calls.empty()) return 0;
  check(api_.groupStart(), "ncclGroupStart");
  size_t issued = 0;
  ncclResult_t failed = ncclSuccess;
  const NcclCall* failedCall = nullptr;
  for (const NcclCall& call : calls) {
    failed = issue(call, &issued);
    if (failed != ncclSuccess) {
      failedCall = &call;
      break;
    }
  }
  ncclResult_t ended = ncclSuccess;
  {
    Armed guard(watchdog_, "ncclGroupEnd");
    ended = api_.groupEnd();  // with a failed call inside, this cancels the group
  }
  if (failedCall != nullptr)
    abortAll(fmt::format("NCCL error {} in {} inside a group (the group was cancelled)",
                         api_.errorText(failed, failedCall->comm), callName(failedCall->kind)));
  if (ended != ncclSuccess) abortAll(fmt::format("NCCL error {} in ncclGroupEnd", api_.errorText(ended)));
  return issued;
}

std::string NcclComms::asyncError() const {
  for (ncclComm_t comm : owned_) {
    ncclResult_t async = ncclSuccess;
    const ncclResult_t status = api_.commGetAsyncError(comm, &async);
    if (status != ncclSuccess) return api_.errorText(status, comm);
    if (async != ncclSuccess && async != ncclInProgress) return api_.errorText(async, comm);
  }
  return {};
}

void NcclComms::abortEach() noexcept {
  for (ncclComm_t comm : owned_) static_cast<void>(api_.commAbort(comm));
  owned_.clear();
}

void NcclComms::abortAll(const std::string& reason) {
  broken_ = true;
  brokenReason_ = reason;
  {
    Armed guard(watchdog_, "ncclCommAbort");
    abortEach();
  }
  throw BackendError(reason + "; communicators aborted");
}

void NcclComms::close(const std::function<void()>& drain) {
  if (broken_ || owned_.empty()) return;
  Armed guard(watchdog_, "teardown (waiting for the GPU streams, ncclCommDestroy)");
  drain();
  for (ncclComm_t comm : owned_) static_cast<void>(api_.commDestroy(comm));
  owned_.clear();
}

}  // namespace reshardctl::gpu
