// Every NCCL communicator of the backend, and every NCCL call that can leave
// NCCL in a bad state: creating communicators, launching a step's group of
// calls, polling asynchronous errors, aborting, tearing down. It uses NCCL only
// through the NcclApi table and CUDA not at all, so each error path is
// unit-tested with tables of fakes (nccl_comms_test.cpp).
//
// - A group is all or nothing. Whatever can throw (finding buffers, ranks,
//   communicators) runs in `build`, before ncclGroupStart; inside the group are
//   only table calls, which return codes. A call that fails there ends the
//   group early: ncclGroupEnd then cancels it (NCCL treats a group holding a
//   failed call as one failed operation: none of it launches) and the
//   communicators are aborted.
// - ncclGroupEnd runs under the watchdog. When it fails the set is broken: every
//   communicator is aborted (under the watchdog too), BackendError is thrown,
//   and nothing afterwards waits for a stream or calls ncclCommDestroy.
// - Teardown of a healthy set waits for the streams (the caller's `drain`) and
//   destroys the communicators under the watchdog: a hung kernel would
//   otherwise hang the process at its exit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "exec/gpu/nccl_library.h"
#include "exec/gpu/nccl_setup.h"
#include "exec/step_program.h"

namespace reshardctl::gpu {

// One NCCL call of a step, with everything resolved.
struct NcclCall {
  CommKind kind = CommKind::AllReduce;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;  // NCCL's count argument (see CommOp::count)
  ncclDataType_t type = ncclFloat32;
  ncclRedOp_t op = ncclSum;
  int peer = -1;         // send, recv: the peer's rank in `comm`
  int groupSize = 1;     // all_to_all: the ranks of `comm`
  size_t elemBytes = 4;  // all_to_all as send/recv pairs: block i starts at i * count * elemBytes
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

class NcclComms {
 public:
  NcclComms(const NcclApi& api, Watchdog& watchdog);
  ~NcclComms();  // aborts whatever close() did not release
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;

  const NcclApi& api() const { return api_; }
  const NcclFeatures& features() const { return features_; }

  // Throws BackendError naming `what` and NCCL's explanation unless ncclSuccess.
  void check(ncclResult_t status, const char* what, ncclComm_t comm = nullptr) const;

  // New communicators, owned by this set; blocking calls, under the watchdog.
  std::vector<ncclComm_t> initAll(const std::vector<int>& devices, const char* what);
  ncclComm_t initRank(int nranks, const ncclUniqueId& id, int rank, const char* what);
  ncclComm_t split(ncclComm_t parent, int color, int key, const char* what);

  // Runs `build` (which may throw: nothing has reached NCCL yet), then issues
  // the calls it made as one group. Returns the number of NCCL calls issued
  // (all_to_all without ncclAlltoAll is 2n of them); throws BackendError after
  // aborting everything when NCCL fails.
  size_t launchGroup(const std::function<void(std::vector<NcclCall>&)>& build);

  // NCCL's first asynchronous error on any communicator, or "".
  std::string asyncError() const;

  // Aborts every communicator (under the watchdog), marks the set broken and
  // throws BackendError(reason).
  [[noreturn]] void abortAll(const std::string& reason);
  bool broken() const { return broken_; }
  const std::string& brokenReason() const { return brokenReason_; }

  // Teardown: when healthy, drain() (wait for the streams) then ncclCommDestroy
  // of each, under the watchdog; when broken, nothing is left to do.
  void close(const std::function<void()>& drain);

 private:
  ncclResult_t issue(const NcclCall& call, size_t* issued) const noexcept;
  void abortEach() noexcept;

  const NcclApi& api_;
  NcclFeatures features_;
  Watchdog& watchdog_;
  std::vector<ncclComm_t> owned_;
  bool broken_ = false;
  std::string brokenReason_;
};

}  // namespace reshardctl::gpu
