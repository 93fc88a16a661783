// The index arithmetic of every CUDA kernel in cuda_kernels.cu, written once as
// __host__ __device__ code: each kernel is a one-line call of the body below
// for its (block, thread), and kernel_index_test.cpp runs the same bodies on
// the host for every (block, thread) of the launch the kernel would get,
// comparing with box_copy.h's copyBoxHost. Needs no CUDA header, so the test
// runs in every build, GPU or not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "exec/box_copy.h"

#if defined(__CUDACC__)
#define RESHARDCTL_HOST_DEVICE __host__ __device__
#else
#define RESHARDCTL_HOST_DEVICE
#endif
#if defined(__CUDA_ARCH__)  // nvcc's device pass; the host compiler knows no such pragma
#define RESHARDCTL_UNROLL _Pragma("unroll")
#else
#define RESHARDCTL_UNROLL
#endif

namespace reshardctl::gpu {

// 256 threads, 4 units each in flight before the first store: enough bytes in
// flight per SM on Hopper to stream HBM, and few registers per thread.
inline constexpr int kThreads = 256;
inline constexpr int kUnroll = 4;
inline constexpr int64_t kTile = int64_t{kThreads} * kUnroll;
// Rows shorter than this waste most of a tile; they go element by element.
inline constexpr int64_t kMinRowForTiles = 512;
// Grid-stride loops: at most this many blocks per SM.
inline constexpr int64_t kBlocksPerSm = 16;

// A BoxCopy as a kernel argument.
struct CopyArgs {
  int rank = 1;  // >= 1
  int64_t extent[kMaxCopyDims] = {};
  int64_t srcStride[kMaxCopyDims] = {};
  int64_t dstStride[kMaxCopyDims] = {};
  int64_t srcOffset = 0;
  int64_t dstOffset = 0;
  int64_t count = 0;
  int64_t inner = 0;        // extent of the innermost dim
  int64_t tilesPerRow = 0;  // tiles of kTile units per innermost run (tiled kernel)
  int64_t tiles = 0;
  bool tiled = false;  // copyTiles (rows of at least kMinRowForTiles) or copyElements
};

inline CopyArgs makeCopyArgs(const BoxCopy& copy) {
  CopyArgs args;
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
  args.tiled = args.inner >= kMinRowForTiles;
  if (args.tiled) {
    args.tilesPerRow = (args.inner + kTile - 1) / kTile;
    args.tiles = args.count / args.inner * args.tilesPerRow;
  }
  return args;
}

// Blocks for `work` items of `perBlock` each on a GPU of `sms` multiprocessors,
// capped for grid-stride loops.
inline int64_t gridFor(int64_t work, int64_t perBlock, int sms) {
  const int64_t wanted = (work + perBlock - 1) / perBlock;
  return std::max<int64_t>(1, std::min<int64_t>(wanted, int64_t{std::max(sms, 1)} * kBlocksPerSm));
}

// The launch of a box copy: tiles get one block each, elements one thread each.
inline int64_t copyGrid(const CopyArgs& args, int sms) {
  return args.tiled ? gridFor(args.tiles, 1, sms) : gridFor(args.count, kThreads, sms);
}

// The units the kernel moves: 16, 8 or 4 bytes where box_copy.h's widenBoxCopy
// allows, else the element itself. launchBoxCopy dispatches on unitBytes.
inline BoxCopy widestCopy(const BoxCopy& copy, const void* src, const void* dst) {
  for (const int64_t unit : {int64_t{16}, int64_t{8}, int64_t{4}}) {
    const BoxCopy wide = widenBoxCopy(copy, unit, src, dst);
    if (wide.unitBytes == unit) return wide;
  }
  return copy;
}

struct UnitOffsets {
  int64_t src = 0;
  int64_t dst = 0;
};

// Where unit `linear` (row-major over the box's extents, the innermost dims
// first from `firstDim` outwards) sits in the source and destination.
RESHARDCTL_HOST_DEVICE inline UnitOffsets offsetsOf(const CopyArgs& a, int64_t linear, int firstDim) {
  UnitOffsets at{a.srcOffset, a.dstOffset};
  for (int dim = firstDim; dim >= 0; --dim) {
    const int64_t index = linear % a.extent[dim];
    linear /= a.extent[dim];
    at.src += index * a.srcStride[dim];
    at.dst += index * a.dstStride[dim];
  }
  return at;
}

// copyTiles: each tile is kTile consecutive units of one innermost run; the
// outer index of the run is decoded once per tile, and every thread loads its
// kUnroll units before storing any.
template <typename Unit>
RESHARDCTL_HOST_DEVICE inline void copyTilesBody(const CopyArgs& a, const Unit* __restrict__ src,
                                                 Unit* __restrict__ dst, int64_t block, int64_t blocks,
                                                 int thread) {
  const int inner = a.rank - 1;
  const int64_t is = a.srcStride[inner];
  const int64_t ds = a.dstStride[inner];
  for (int64_t tile = block; tile < a.tiles; tile += blocks) {
    const int64_t row = tile / a.tilesPerRow;
    const int64_t first = (tile - row * a.tilesPerRow) * kTile + thread;
    const UnitOffsets at = offsetsOf(a, row, inner - 1);
    Unit values[kUnroll] = {};  // only the slots of columns inside the row are read back
RESHARDCTL_UNROLL
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t column = first + int64_t{k} * kThreads;
      if (column < a.inner) values[k] = src[at.src + column * is];
    }
RESHARDCTL_UNROLL
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t column = first + int64_t{k} * kThreads;
      if (column < a.inner) dst[at.dst + column * ds] = values[k];
    }
  }
}

// copyElements: one unit per thread, grid-stride.
template <typename Unit>
RESHARDCTL_HOST_DEVICE inline void copyElementsBody(const CopyArgs& a, const Unit* __restrict__ src,
                                                    Unit* __restrict__ dst, int64_t block, int64_t blocks,
                                                    int thread) {
  for (int64_t e = block * kThreads + thread; e < a.count; e += blocks * kThreads) {
    const UnitOffsets at = offsetsOf(a, e, a.rank - 1);
    dst[at.dst] = src[at.src];
  }
}

// Fill and the elementwise operations: element e of `count` for every thread, grid-stride.
template <typename Visit>
RESHARDCTL_HOST_DEVICE inline void gridStride(int64_t count, int64_t block, int64_t blocks, int thread, Visit visit) {
  for (int64_t e = block * kThreads + thread; e < count; e += blocks * kThreads) visit(e);
}

// The value fix-ups of reductions for integer and IEEE float types (the
// kernels convert half and bfloat16 through float around these).
template <typename T>
RESHARDCTL_HOST_DEVICE inline T logicalOf(T value) {
  return value != T(0) ? T(1) : T(0);
}

template <typename T>
RESHARDCTL_HOST_DEVICE inline T quotientOf(T value, int64_t divisor) {
  if constexpr (std::is_floating_point_v<T>) {
    return value / static_cast<T>(divisor);
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<T>(value / static_cast<T>(divisor));
  } else {
    return static_cast<T>(static_cast<int64_t>(value) / divisor);  // C++ division truncates toward zero
  }
}

// scale's SUM -> AVG (reshard/plan.h): real floating point only, where a power
// of two factor is exact.
template <typename T>
RESHARDCTL_HOST_DEVICE inline T productOf(T value, int64_t factor) {
  return static_cast<T>(value * static_cast<T>(factor));
}

// The elementwise kernel's operations (cuda_kernels.cu elementwiseKernel):
// each applies one fix-up above, with its operand.
struct Logical {
  template <typename T>
  RESHARDCTL_HOST_DEVICE T operator()(T value) const { return logicalOf(value); }
};
struct DivideBy {
  int64_t divisor;
  template <typename T>
  RESHARDCTL_HOST_DEVICE T operator()(T value) const { return quotientOf(value, divisor); }
};
struct MultiplyBy {
  int64_t factor;
  template <typename T>
  RESHARDCTL_HOST_DEVICE T operator()(T value) const { return productOf(value, factor); }
};

}  // namespace reshardctl::gpu
