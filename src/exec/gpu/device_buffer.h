// Device memory owned by one rank's stream. Allocation and release are
// stream-ordered (cudaMallocAsync / cudaFreeAsync), so a buffer that a queued
// kernel or NCCL call still reads can be dropped on the host at once, and a
// plan's steps never wait for the device; the device's default pool keeps freed
// memory (nccl_backend.cpp raises its release threshold), so repeated runs
// (--iters) do not pay for allocations. On a device without memory pools
// (cudaDevAttrMemoryPoolsSupported = 0) `pooled` is false: plain cudaMalloc,
// and cudaFree, which waits for the device before it frees.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace reshardctl::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, cudaStream_t stream, size_t bytes, bool pooled);  // throws BackendError
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::byte* bytesAt(size_t offset) const { return static_cast<std::byte*>(data_) + offset; }
  size_t size() const { return size_; }

 private:
  void release() noexcept;

  void* data_ = nullptr;
  size_t size_ = 0;
  int device_ = -1;
  cudaStream_t stream_ = nullptr;
  bool pooled_ = true;
};

}  // namespace reshardctl::gpu
