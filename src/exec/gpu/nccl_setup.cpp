#include "exec/gpu/nccl_setup.h"

#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "support/output_sink.h"

namespace reshardctl::gpu {

ncclDataType_t ncclTypeOf(DeviceType type) {
  switch (type) {
    case DeviceType::U8: return ncclUint8;
    case DeviceType::I8: return ncclInt8;
    case DeviceType::I32: return ncclInt32;
    case DeviceType::U32: return ncclUint32;
    case DeviceType::I64: return ncclInt64;
    case DeviceType::U64: return ncclUint64;
    case DeviceType::F16: return ncclFloat16;
    case DeviceType::BF16: return ncclBfloat16;
    case DeviceType::F32: return ncclFloat32;
    case DeviceType::F64: return ncclFloat64;
  }
  return ncclUint8;
}

ncclRedOp_t ncclOpOf(DeviceReduceOp op) {
  switch (op) {
    case DeviceReduceOp::Sum: return ncclSum;
    case DeviceReduceOp::Prod: return ncclProd;
    case DeviceReduceOp::Max: return ncclMax;
    case DeviceReduceOp::Min: return ncclMin;
    case DeviceReduceOp::Avg: return ncclAvg;
  }
  return ncclSum;
}

void throwCuda(cudaError_t status, const char* call) {
  throw BackendError(fmt::format("CUDA error {} ({}) in {}", cudaGetErrorName(status), cudaGetErrorString(status), call));
}

double ncclTimeoutSeconds() {
  const char* text = std::getenv("RESHARDCTL_NCCL_TIMEOUT_S");
  if (text != nullptr) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end != text && seconds > 0) return seconds;
  }
  return 60.0;
}

void exitOnTimeout(const char* what, double seconds) {
  standardError() += fmt::format("reshardctl: error: {} did not return within {:.0f} s; NCCL is hung, giving up "
                                 "(RESHARDCTL_NCCL_TIMEOUT_S sets the limit)\n",
                                 what, seconds);
  standardError().flush();
  std::_Exit(2);
}

Watchdog::Watchdog(double seconds, TimeoutAction onTimeout)
    : limit_(seconds), onTimeout_(std::move(onTimeout)), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Watchdog::arm(const char* what) {
  {
    std::lock_guard lock(mutex_);
    what_ = what;
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit_);
  }
  changed_.notify_all();
}

void Watchdog::disarm() {
  {
    std::lock_guard lock(mutex_);
    what_ = nullptr;
  }
  changed_.notify_all();
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (what_ == nullptr) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, deadline_) == std::cv_status::timeout && what_ != nullptr && !stop_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      onTimeout_(what_, limit_.count());
      what_ = nullptr;  // an action that returns (a test's) fires once per arming
    }
  }
}

}  // namespace reshardctl::gpu
