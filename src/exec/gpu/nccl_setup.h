// What the NCCL backend needs around NCCL itself: the datatype and reduction
// mappings, CUDA errors turned into BackendError, the timeout, and a watchdog
// for host calls that can block (communicator init, ncclGroupEnd, abort,
// teardown), which polling cannot cover.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "exec/device_reduce.h"
#include "exec/element_codec.h"

namespace reshardctl::gpu {

ncclDataType_t ncclTypeOf(DeviceType type);
ncclRedOp_t ncclOpOf(DeviceReduceOp op);

[[noreturn]] void throwCuda(cudaError_t status, const char* call);

#define RESHARDCTL_CUDA(call)                                                    \
  do {                                                                           \
    const cudaError_t reshardctl_status = (call);                                \
    if (reshardctl_status != cudaSuccess) ::reshardctl::gpu::throwCuda(reshardctl_status, #call); \
  } while (0)

// Seconds one execution of a plan may take, all its steps together, from the
// first launch to the last stream finishing; also the limit of each blocking
// NCCL host call (init, ncclGroupEnd, abort, teardown): RESHARDCTL_NCCL_TIMEOUT_S,
// default 60.
double ncclTimeoutSeconds();

// While armed, a thread waits for disarm(); if the timeout passes first it
// calls onTimeout(what, limit): by default exitOnTimeout, which prints what hung
// and ends the process with exit code 2, because a thread blocked inside NCCL
// cannot be unwound and `run` must never hang. Tests give their own action.
using TimeoutAction = std::function<void(const char* what, double seconds)>;
[[noreturn]] void exitOnTimeout(const char* what, double seconds);

class Watchdog {
 public:
  explicit Watchdog(double seconds, TimeoutAction onTimeout = exitOnTimeout);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(const char* what);
  void disarm();

 private:
  void watch();

  std::chrono::duration<double> limit_;
  TimeoutAction onTimeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  const char* what_ = nullptr;
  std::chrono::steady_clock::time_point deadline_;
  bool stop_ = false;
  std::thread thread_;
};

// Arms a watchdog for one scope.
class Armed {
 public:
  Armed(Watchdog& dog, const char* what) : dog_(dog) { dog_.arm(what); }
  ~Armed() { dog_.disarm(); }
  Armed(const Armed&) = delete;
  Armed& operator=(const Armed&) = delete;

 private:
  Watchdog& dog_;
};

}  // namespace reshardctl::gpu
