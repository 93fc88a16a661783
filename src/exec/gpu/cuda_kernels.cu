#include "exec/gpu/cuda_kernels.h"
#include "exec/gpu/kernel_index.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

namespace reshardctl::gpu {

namespace {

// Each kernel is its body from kernel_index.h (unit-tested on the host) for
// this thread.
template <typename Unit>
__global__ void __launch_bounds__(kThreads) copyTiles(CopyArgs a, const Unit* __restrict__ src, Unit* __restrict__ dst) {
  copyTilesBody(a, src, dst, blockIdx.x, gridDim.x, static_cast<int>(threadIdx.x));
}

template <typename Unit>
__global__ void __launch_bounds__(kThreads) copyElements(CopyArgs a, const Unit* __restrict__ src, Unit* __restrict__ dst) {
  copyElementsBody(a, src, dst, blockIdx.x, gridDim.x, static_cast<int>(threadIdx.x));
}

template <typename Unit>
__global__ void __launch_bounds__(kThreads) fillKernel(Unit* __restrict__ dst, int64_t count, Unit value) {
  gridStride(count, blockIdx.x, gridDim.x, static_cast<int>(threadIdx.x), [&](int64_t e) { dst[e] = value; });
}

template <typename T> __device__ float asFloat(T value) { return static_cast<float>(value); }
template <> __device__ float asFloat(__half value) { return __half2float(value); }
template <> __device__ float asFloat(__nv_bfloat16 value) { return __bfloat162float(value); }
template <typename T> __device__ T fromFloat(float value) { return static_cast<T>(value); }
template <> __device__ __half fromFloat(float value) { return __float2half_rn(value); }
template <> __device__ __nv_bfloat16 fromFloat(float value) { return __float2bfloat16_rn(value); }

// Every elementwise fix-up `op` (kernel_index.h: Logical, DivideBy,
// MultiplyBy), grid-stride. Half and bfloat16 go through float: a float
// result rounded once more to 11 or 8 bits equals the direct rounding
// (24 >= 2p + 2), so a quotient matches the reference's double math.
template <typename T, typename Op>
__global__ void __launch_bounds__(kThreads) elementwiseKernel(T* data, int64_t count, Op op) {
  gridStride(count, blockIdx.x, gridDim.x, static_cast<int>(threadIdx.x), [&](int64_t e) {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
      data[e] = fromFloat<T>(op(asFloat(data[e])));
    } else {
      data[e] = op(data[e]);
    }
  });
}

// The elementwise kernel's two-operand form: dst[e] = op(dst[e], src[e]),
// half and bfloat16 through float as above (a sum, product, max or min of two
// values rounded once more to 11 or 8 bits equals the direct rounding).
template <typename T, typename Op>
__global__ void __launch_bounds__(kThreads) combineKernel(T* dst, const T* src, int64_t count, Op op) {
  gridStride(count, blockIdx.x, gridDim.x, static_cast<int>(threadIdx.x), [&](int64_t e) {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
      dst[e] = fromFloat<T>(op(asFloat(dst[e]), asFloat(src[e])));
    } else {
      dst[e] = static_cast<T>(op(dst[e], src[e]));
    }
  });
}

struct SumOf {
  template <typename T> __device__ T operator()(T a, T b) const { return static_cast<T>(a + b); }
};
struct ProductOf {
  template <typename T> __device__ T operator()(T a, T b) const { return static_cast<T>(a * b); }
};
struct MaxOf {
  template <typename T> __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
struct MinOf {
  template <typename T> __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};

// Blocks for `work` items of `perBlock` each on the current device.
int multiprocessors() {
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

unsigned blocksFor(int64_t work, int64_t perBlock) {
  return static_cast<unsigned>(gridFor(work, perBlock, multiprocessors()));
}

template <typename Unit>
cudaError_t copyAs(const BoxCopy& copy, const void* src, void* dst, cudaStream_t stream) {
  const CopyArgs args = makeCopyArgs(copy);
  const auto* from = static_cast<const Unit*>(src);
  auto* to = static_cast<Unit*>(dst);
  const auto blocks = static_cast<unsigned>(copyGrid(args, multiprocessors()));
  if (args.tiled) {
    copyTiles<Unit><<<blocks, kThreads, 0, stream>>>(args, from, to);
  } else {
    copyElements<Unit><<<blocks, kThreads, 0, stream>>>(args, from, to);
  }
  return cudaGetLastError();
}

template <typename T, typename Op>
cudaError_t elementwise(void* data, int64_t count, Op op, cudaStream_t stream) {
  elementwiseKernel<T><<<blocksFor(count, kThreads), kThreads, 0, stream>>>(static_cast<T*>(data), count, op);
  return cudaGetLastError();
}

template <typename Op>
cudaError_t dispatchElementwise(DeviceType type, void* data, int64_t count, Op op, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (type) {
    case DeviceType::U8: return elementwise<uint8_t>(data, count, op, stream);
    case DeviceType::I8: return elementwise<int8_t>(data, count, op, stream);
    case DeviceType::I32: return elementwise<int32_t>(data, count, op, stream);
    case DeviceType::U32: return elementwise<uint32_t>(data, count, op, stream);
    case DeviceType::I64: return elementwise<int64_t>(data, count, op, stream);
    case DeviceType::U64: return elementwise<uint64_t>(data, count, op, stream);
    case DeviceType::F16: return elementwise<__half>(data, count, op, stream);
    case DeviceType::BF16: return elementwise<__nv_bfloat16>(data, count, op, stream);
    case DeviceType::F32: return elementwise<float>(data, count, op, stream);
    case DeviceType::F64: return elementwise<double>(data, count, op, stream);
  }
  return cudaErrorInvalidValue;
}

template <typename T, typename Op>
cudaError_t combine(void* dst, const void* src, int64_t count, Op op, cudaStream_t stream) {
  combineKernel<T><<<blocksFor(count, kThreads), kThreads, 0, stream>>>(static_cast<T*>(dst),
                                                                        static_cast<const T*>(src), count, op);
  return cudaGetLastError();
}

template <typename Op>
cudaError_t dispatchCombine(DeviceType type, void* dst, const void* src, int64_t count, Op op, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (type) {
    case DeviceType::U8: return combine<uint8_t>(dst, src, count, op, stream);
    case DeviceType::I8: return combine<int8_t>(dst, src, count, op, stream);
    case DeviceType::I32: return combine<int32_t>(dst, src, count, op, stream);
    case DeviceType::U32: return combine<uint32_t>(dst, src, count, op, stream);
    case DeviceType::I64: return combine<int64_t>(dst, src, count, op, stream);
    case DeviceType::U64: return combine<uint64_t>(dst, src, count, op, stream);
    case DeviceType::F16: return combine<__half>(dst, src, count, op, stream);
    case DeviceType::BF16: return combine<__nv_bfloat16>(dst, src, count, op, stream);
    case DeviceType::F32: return combine<float>(dst, src, count, op, stream);
    case DeviceType::F64: return combine<double>(dst, src, count, op, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launchCombine(DeviceType type, CombineOp op, void* dst, const void* src, int64_t count,
                          cudaStream_t stream) {
  switch (op) {
    case CombineOp::Sum: return dispatchCombine(type, dst, src, count, SumOf{}, stream);
    case CombineOp::Prod: return dispatchCombine(type, dst, src, count, ProductOf{}, stream);
    case CombineOp::Max: return dispatchCombine(type, dst, src, count, MaxOf{}, stream);
    case CombineOp::Min: return dispatchCombine(type, dst, src, count, MinOf{}, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launchBoxCopy(const BoxCopy& plain, const void* src, void* dst, cudaStream_t stream) {
  if (plain.empty || plain.count() == 0) return cudaSuccess;
  const BoxCopy copy = widestCopy(plain, src, dst);
  switch (copy.unitBytes) {
    case 1: return copyAs<uint8_t>(copy, src, dst, stream);
    case 2: return copyAs<uint16_t>(copy, src, dst, stream);
    case 4: return copyAs<uint32_t>(copy, src, dst, stream);
    case 8: return copyAs<unsigned long long>(copy, src, dst, stream);
    case 16: return copyAs<uint4>(copy, src, dst, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launchFill(void* dst, int64_t count, int64_t elemBytes, uint64_t bits, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  const unsigned blocks = blocksFor(count, kThreads);
  switch (elemBytes) {
    case 1: fillKernel<uint8_t><<<blocks, kThreads, 0, stream>>>(static_cast<uint8_t*>(dst), count, static_cast<uint8_t>(bits)); break;
    case 2: fillKernel<uint16_t><<<blocks, kThreads, 0, stream>>>(static_cast<uint16_t*>(dst), count, static_cast<uint16_t>(bits)); break;
    case 4: fillKernel<uint32_t><<<blocks, kThreads, 0, stream>>>(static_cast<uint32_t*>(dst), count, static_cast<uint32_t>(bits)); break;
    case 8: fillKernel<unsigned long long><<<blocks, kThreads, 0, stream>>>(static_cast<unsigned long long*>(dst), count, bits); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launchLogical(DeviceType type, void* data, int64_t count, cudaStream_t stream) {
  return dispatchElementwise(type, data, count, Logical{}, stream);
}

cudaError_t launchDivide(DeviceType type, void* data, int64_t count, int64_t divisor, cudaStream_t stream) {
  return dispatchElementwise(type, data, count, DivideBy{divisor}, stream);
}

cudaError_t launchMultiply(DeviceType type, void* data, int64_t count, int64_t factor, cudaStream_t stream) {
  return dispatchElementwise(type, data, count, MultiplyBy{factor}, stream);
}

}  // namespace reshardctl::gpu
