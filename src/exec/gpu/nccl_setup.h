// What the NCCL backend needs around NCCL itself: the datatype and reduction
// mappings, errors turned into BackendError with NCCL's own explanation, and a
// watchdog for host calls that can block (communicator init, ncclGroupEnd),
// which polling cannot cover.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "exec/device_reduce.h"
#include "exec/element_codec.h"

namespace reshardctl::gpu {

ncclDataType_t ncclTypeOf(DeviceType type);
ncclRedOp_t ncclOpOf(DeviceReduceOp op);
std::string ncclVersionText(int code);  // 22809 -> "2.28.9"
int ncclRuntimeVersion();                // of the libnccl this process loaded

[[noreturn]] void throwCuda(cudaError_t status, const char* call);
[[noreturn]] void throwNccl(ncclResult_t status, const char* call);

#define RESHARDCTL_CUDA(call)                                                    \
  do {                                                                           \
    const cudaError_t reshardctl_status = (call);                                \
    if (reshardctl_status != cudaSuccess) ::reshardctl::gpu::throwCuda(reshardctl_status, #call); \
  } while (0)
#define RESHARDCTL_NCCL(call)                                                    \
  do {                                                                           \
    const ncclResult_t reshardctl_status = (call);                               \
    if (reshardctl_status != ncclSuccess) ::reshardctl::gpu::throwNccl(reshardctl_status, #call); \
  } while (0)

// Seconds a plan (or one blocking NCCL call) may take: RESHARDCTL_NCCL_TIMEOUT_S,
// default 60.
double ncclTimeoutSeconds();

// While armed, a thread waits for disarm(); if the timeout passes first it
// prints what hung and ends the process with exit code 2, because a thread
// blocked inside NCCL cannot be unwound and the issue asks for no hangs.
class Watchdog {
 public:
  explicit Watchdog(double seconds);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(const char* what);
  void disarm();

 private:
  void watch();

  std::chrono::duration<double> limit_;
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
