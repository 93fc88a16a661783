#include "exec/gpu/cuda_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

namespace reshardctl::gpu {

namespace {

// 256 threads, 4 units each in flight before the first store: enough bytes in
// flight per SM on Hopper to stream HBM, and few registers per thread.
constexpr int kThreads = 256;
constexpr int kUnroll = 4;
constexpr int64_t kTile = int64_t{kThreads} * kUnroll;
// Rows shorter than this waste most of a tile; they go element by element.
constexpr int64_t kMinRowForTiles = 512;

struct CopyArgs {
  int rank;  // >= 1
  int64_t extent[kMaxCopyDims];
  int64_t srcStride[kMaxCopyDims];
  int64_t dstStride[kMaxCopyDims];
  int64_t srcOffset;
  int64_t dstOffset;
  int64_t count;
  int64_t inner;        // extent of the innermost dim
  int64_t tilesPerRow;  // tiles of kTile units per innermost run
  int64_t tiles;
};

// Each tile is kTile consecutive units of one innermost run; the outer index of
// the run is decoded once per tile.
template <typename Unit>
__global__ void __launch_bounds__(kThreads) copyTiles(CopyArgs a, const Unit* __restrict__ src, Unit* __restrict__ dst) {
  const int inner = a.rank - 1;
  const int64_t is = a.srcStride[inner];
  const int64_t ds = a.dstStride[inner];
  for (int64_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
    int64_t row = tile / a.tilesPerRow;
    const int64_t first = (tile - row * a.tilesPerRow) * kTile + threadIdx.x;
    int64_t s = a.srcOffset, d = a.dstOffset;
    for (int dim = inner - 1; dim >= 0; --dim) {
      const int64_t index = row % a.extent[dim];
      row /= a.extent[dim];
      s += index * a.srcStride[dim];
      d += index * a.dstStride[dim];
    }
    Unit values[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t column = first + int64_t{k} * kThreads;
      if (column < a.inner) values[k] = src[s + column * is];
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t column = first + int64_t{k} * kThreads;
      if (column < a.inner) dst[d + column * ds] = values[k];
    }
  }
}

template <typename Unit>
__global__ void __launch_bounds__(kThreads) copyElements(CopyArgs a, const Unit* __restrict__ src, Unit* __restrict__ dst) {
  for (int64_t e = int64_t{blockIdx.x} * kThreads + threadIdx.x; e < a.count; e += int64_t{gridDim.x} * kThreads) {
    int64_t rest = e, s = a.srcOffset, d = a.dstOffset;
    for (int dim = a.rank - 1; dim >= 0; --dim) {
      const int64_t index = rest % a.extent[dim];
      rest /= a.extent[dim];
      s += index * a.srcStride[dim];
      d += index * a.dstStride[dim];
    }
    dst[d] = src[s];
  }
}

template <typename Unit>
__global__ void __launch_bounds__(kThreads) fillKernel(Unit* __restrict__ dst, int64_t count, Unit value) {
  for (int64_t e = int64_t{blockIdx.x} * kThreads + threadIdx.x; e < count; e += int64_t{gridDim.x} * kThreads)
    dst[e] = value;
}

template <typename T> __device__ float asFloat(T value) { return static_cast<float>(value); }
template <> __device__ float asFloat(__half value) { return __half2float(value); }
template <> __device__ float asFloat(__nv_bfloat16 value) { return __bfloat162float(value); }
template <typename T> __device__ T fromFloat(float value) { return static_cast<T>(value); }
template <> __device__ __half fromFloat(float value) { return __float2half_rn(value); }
template <> __device__ __nv_bfloat16 fromFloat(float value) { return __float2bfloat16_rn(value); }

template <typename T>
__global__ void __launch_bounds__(kThreads) logicalKernel(T* data, int64_t count) {
  for (int64_t e = int64_t{blockIdx.x} * kThreads + threadIdx.x; e < count; e += int64_t{gridDim.x} * kThreads) {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
      data[e] = fromFloat<T>(asFloat(data[e]) != 0.0f ? 1.0f : 0.0f);
    } else {
      data[e] = data[e] != T(0) ? T(1) : T(0);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) divideKernel(T* data, int64_t count, int64_t divisor) {
  for (int64_t e = int64_t{blockIdx.x} * kThreads + threadIdx.x; e < count; e += int64_t{gridDim.x} * kThreads) {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
      // A float quotient rounded once more to 11 or 8 bits equals the direct
      // rounding (24 >= 2p + 2), so this matches the reference's double math.
      data[e] = fromFloat<T>(asFloat(data[e]) / static_cast<float>(divisor));
    } else if constexpr (std::is_floating_point_v<T>) {
      data[e] = data[e] / static_cast<T>(divisor);
    } else if constexpr (std::is_unsigned_v<T>) {
      data[e] = static_cast<T>(data[e] / static_cast<T>(divisor));
    } else {
      data[e] = static_cast<T>(static_cast<int64_t>(data[e]) / divisor);  // C++ division truncates toward zero
    }
  }
}

// Blocks for `work` items of `perBlock` each, capped for grid-stride loops.
unsigned blocksFor(int64_t work, int64_t perBlock) {
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int64_t wanted = (work + perBlock - 1) / perBlock;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(wanted, int64_t{sms} * 16)));
}

template <typename Unit>
cudaError_t copyAs(const BoxCopy& copy, const void* src, void* dst, cudaStream_t stream) {
  CopyArgs args{};
  args.rank = std::max(copy.rank, 1);
  for (int dim = 0; dim < kMaxCopyDims; ++dim) {
    args.extent[dim] = copy.extent[dim];
    args.srcStride[dim] = copy.srcStride[dim];
    args.dstStride[dim] = copy.dstStride[dim];
  }
  if (copy.rank == 0) args.extent[0] = args.srcStride[0] = args.dstStride[0] = 1;  // a single element
  args.srcOffset = copy.srcOffset;
  args.dstOffset = copy.dstOffset;
  args.count = copy.count();
  args.inner = args.extent[args.rank - 1];
  const auto* from = static_cast<const Unit*>(src);
  auto* to = static_cast<Unit*>(dst);
  if (args.inner >= kMinRowForTiles) {
    args.tilesPerRow = (args.inner + kTile - 1) / kTile;
    args.tiles = args.count / args.inner * args.tilesPerRow;
    copyTiles<Unit><<<blocksFor(args.tiles, 1), kThreads, 0, stream>>>(args, from, to);
  } else {
    copyElements<Unit><<<blocksFor(args.count, kThreads), kThreads, 0, stream>>>(args, from, to);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t elementwise(DeviceType, void* data, int64_t count, int64_t divisor, bool divide, cudaStream_t stream) {
  const unsigned blocks = blocksFor(count, kThreads);
  if (divide)
    divideKernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(data), count, divisor);
  else
    logicalKernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(data), count);
  return cudaGetLastError();
}

cudaError_t dispatchElementwise(DeviceType type, void* data, int64_t count, int64_t divisor, bool divide,
                                cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (type) {
    case DeviceType::U8: return elementwise<uint8_t>(type, data, count, divisor, divide, stream);
    case DeviceType::I8: return elementwise<int8_t>(type, data, count, divisor, divide, stream);
    case DeviceType::I32: return elementwise<int32_t>(type, data, count, divisor, divide, stream);
    case DeviceType::U32: return elementwise<uint32_t>(type, data, count, divisor, divide, stream);
    case DeviceType::I64: return elementwise<int64_t>(type, data, count, divisor, divide, stream);
    case DeviceType::U64: return elementwise<uint64_t>(type, data, count, divisor, divide, stream);
    case DeviceType::F16: return elementwise<__half>(type, data, count, divisor, divide, stream);
    case DeviceType::BF16: return elementwise<__nv_bfloat16>(type, data, count, divisor, divide, stream);
    case DeviceType::F32: return elementwise<float>(type, data, count, divisor, divide, stream);
    case DeviceType::F64: return elementwise<double>(type, data, count, divisor, divide, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launchBoxCopy(const BoxCopy& copy, const void* src, void* dst, cudaStream_t stream) {
  if (copy.empty || copy.count() == 0) return cudaSuccess;
  for (const int64_t unit : {int64_t{16}, int64_t{8}, int64_t{4}}) {
    const BoxCopy wide = widenBoxCopy(copy, unit, src, dst);
    if (wide.unitBytes != unit) continue;
    switch (unit) {
      case 16: return copyAs<uint4>(wide, src, dst, stream);
      case 8: return copyAs<unsigned long long>(wide, src, dst, stream);
      default: return copyAs<uint32_t>(wide, src, dst, stream);
    }
  }
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
  return dispatchElementwise(type, data, count, 1, false, stream);
}

cudaError_t launchDivide(DeviceType type, void* data, int64_t count, int64_t divisor, cudaStream_t stream) {
  return dispatchElementwise(type, data, count, divisor, true, stream);
}

}  // namespace reshardctl::gpu
