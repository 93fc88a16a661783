// A strided copy of a box between two row-major buffers: the one data-movement
// primitive of the GPU backend's local steps (slice, concat, pad, unpad). The
// descriptor is built and simplified on the host (dims of extent 1 dropped,
// contiguous dims merged, accesses widened to 16 bytes where alignment allows),
// so the index math is unit-tested without a GPU and the CUDA kernel only walks
// a few strides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace reshardctl {

inline constexpr int kMaxCopyDims = 8;

struct BoxCopy {
  int rank = 0;  // dims left after simplifying; 0: a single element (or none, see count)
  int64_t extent[kMaxCopyDims] = {};
  int64_t srcStride[kMaxCopyDims] = {};  // in units of unitBytes
  int64_t dstStride[kMaxCopyDims] = {};
  int64_t srcOffset = 0;  // first unit read
  int64_t dstOffset = 0;  // first unit written
  int64_t unitBytes = 1;  // bytes per unit: the element size, or more once widened
  bool empty = false;     // some extent is 0: nothing to copy

  int64_t count() const;  // units copied
  // One run of consecutive units on both sides.
  bool contiguous() const { return rank == 0 || (rank == 1 && srcStride[0] == 1 && dstStride[0] == 1); }
  int64_t bytes() const { return count() * unitBytes; }
};

// Copies the box of size `extent` found at `srcOrigin` in a row-major array of
// `srcShape` (which starts `srcBase` elements into its buffer) to `dstOrigin` in
// an array of `dstShape` (starting `dstBase` elements in). Throws
// std::invalid_argument when the box does not fit either array or more than
// kMaxCopyDims dims remain after simplifying.
BoxCopy makeBoxCopy(const std::vector<int64_t>& srcShape, const std::vector<int64_t>& srcOrigin,
                    int64_t srcBase, const std::vector<int64_t>& dstShape, const std::vector<int64_t>& dstOrigin,
                    int64_t dstBase, const std::vector<int64_t>& extent, int64_t elemBytes);

// The same copy in units of `unitBytes` (a multiple of copy.unitBytes, e.g. 16
// for uint4 accesses), when the innermost run, every stride and both offsets
// split evenly and both buffers are aligned to it; else the copy unchanged.
BoxCopy widenBoxCopy(const BoxCopy& copy, int64_t unitBytes, const void* src, const void* dst);

// The reference: what the CUDA kernel must do, on host memory.
void copyBoxHost(const BoxCopy& copy, const std::byte* src, std::byte* dst);

}  // namespace reshardctl
