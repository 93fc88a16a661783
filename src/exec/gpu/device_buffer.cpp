#include "exec/gpu/device_buffer.h"

#include <utility>

#include <fmt/format.h>

#include "exec/execution_backend.h"

namespace reshardctl::gpu {

DeviceBuffer::DeviceBuffer(int device, cudaStream_t stream, size_t bytes, bool pooled)
    : size_(bytes), device_(device), stream_(stream), pooled_(pooled) {
  if (bytes == 0) return;  // empty pieces need no memory; NCCL is never called on them
  cudaError_t status = cudaSetDevice(device);
  if (status == cudaSuccess) status = pooled ? cudaMallocAsync(&data_, bytes, stream) : cudaMalloc(&data_, bytes);
  if (status != cudaSuccess) {
    data_ = nullptr;
    throw BackendError(fmt::format("cannot allocate {} bytes on GPU {}: {}", bytes, device, cudaGetErrorString(status)));
  }
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      device_(other.device_),
      stream_(other.stream_),
      pooled_(other.pooled_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    device_ = other.device_;
    stream_ = other.stream_;
    pooled_ = other.pooled_;
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (data_ == nullptr) return;
  // Errors are ignored: after an aborted communicator the stream may be broken,
  // and a destructor has no one to tell.
  if (cudaSetDevice(device_) == cudaSuccess)
    static_cast<void>(pooled_ ? cudaFreeAsync(data_, stream_) : cudaFree(data_));
  data_ = nullptr;
  size_ = 0;
}

}  // namespace reshardctl::gpu
