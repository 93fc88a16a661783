#include "exec/box_copy.h"

#include <cstring>
#include <stdexcept>

namespace reshardctl {

int64_t BoxCopy::count() const {
  if (empty) return 0;
  int64_t units = 1;
  for (int dim = 0; dim < rank; ++dim) units *= extent[dim];
  return units;
}

namespace {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t dim = shape.size(); dim-- > 1;) strides[dim - 1] = strides[dim] * shape[dim];
  return strides;
}

void checkFits(const std::vector<int64_t>& shape, const std::vector<int64_t>& origin,
               const std::vector<int64_t>& extent, const char* side) {
  if (shape.size() != extent.size() || origin.size() != extent.size())
    throw std::invalid_argument(std::string("box copy: rank mismatch on the ") + side + " side");
  for (size_t dim = 0; dim < extent.size(); ++dim)
    if (origin[dim] < 0 || extent[dim] < 0 || origin[dim] + extent[dim] > shape[dim])
      throw std::invalid_argument(std::string("box copy: the box leaves the ") + side + " array");
}

}  // namespace

BoxCopy makeBoxCopy(const std::vector<int64_t>& srcShape, const std::vector<int64_t>& srcOrigin,
                    int64_t srcBase, const std::vector<int64_t>& dstShape, const std::vector<int64_t>& dstOrigin,
                    int64_t dstBase, const std::vector<int64_t>& extent, int64_t elemBytes) {
  BoxCopy copy;
  copy.unitBytes = elemBytes;
  for (const int64_t size : extent)
    if (size == 0) copy.empty = true;
  if (copy.empty) return copy;
  checkFits(srcShape, srcOrigin, extent, "source");
  checkFits(dstShape, dstOrigin, extent, "destination");
  const std::vector<int64_t> srcStrides = rowMajorStrides(srcShape);
  const std::vector<int64_t> dstStrides = rowMajorStrides(dstShape);
  copy.srcOffset = srcBase;
  copy.dstOffset = dstBase;
  // Kept dims, outermost first; dims of extent 1 only shift the offsets.
  std::vector<int64_t> ext, src, dst;
  for (size_t dim = 0; dim < extent.size(); ++dim) {
    copy.srcOffset += srcOrigin[dim] * srcStrides[dim];
    copy.dstOffset += dstOrigin[dim] * dstStrides[dim];
    if (extent[dim] == 1) continue;
    // Merge into the previous kept dim when both sides continue it seamlessly.
    if (!ext.empty() && src.back() == srcStrides[dim] * extent[dim] && dst.back() == dstStrides[dim] * extent[dim]) {
      ext.back() *= extent[dim];
      src.back() = srcStrides[dim];
      dst.back() = dstStrides[dim];
      continue;
    }
    ext.push_back(extent[dim]);
    src.push_back(srcStrides[dim]);
    dst.push_back(dstStrides[dim]);
  }
  if (ext.size() > static_cast<size_t>(kMaxCopyDims))
    throw std::invalid_argument("box copy: more than 8 dims after merging contiguous ones");
  copy.rank = static_cast<int>(ext.size());
  for (size_t dim = 0; dim < ext.size(); ++dim) {
    copy.extent[dim] = ext[dim];
    copy.srcStride[dim] = src[dim];
    copy.dstStride[dim] = dst[dim];
  }
  return copy;
}

BoxCopy widenBoxCopy(const BoxCopy& copy, int64_t unitBytes, const void* src, const void* dst) {
  if (copy.empty || unitBytes <= copy.unitBytes || unitBytes % copy.unitBytes != 0) return copy;
  const int64_t factor = unitBytes / copy.unitBytes;
  auto divides = [factor](int64_t value) { return value % factor == 0; };
  if (reinterpret_cast<uintptr_t>(src) % static_cast<uintptr_t>(unitBytes) != 0 ||
      reinterpret_cast<uintptr_t>(dst) % static_cast<uintptr_t>(unitBytes) != 0)
    return copy;
  if (!divides(copy.srcOffset) || !divides(copy.dstOffset)) return copy;
  BoxCopy wide = copy;
  wide.unitBytes = unitBytes;
  wide.srcOffset /= factor;
  wide.dstOffset /= factor;
  if (copy.rank == 0) return copy;  // one element cannot be widened
  const int inner = copy.rank - 1;
  if (copy.srcStride[inner] != 1 || copy.dstStride[inner] != 1 || !divides(copy.extent[inner])) return copy;
  for (int dim = 0; dim < inner; ++dim)
    if (!divides(copy.srcStride[dim]) || !divides(copy.dstStride[dim])) return copy;
  for (int dim = 0; dim < inner; ++dim) {
    wide.srcStride[dim] /= factor;
    wide.dstStride[dim] /= factor;
  }
  wide.extent[inner] /= factor;
  return wide;
}

void copyBoxHost(const BoxCopy& copy, const std::byte* src, std::byte* dst) {
  const int64_t total = copy.count();
  const auto unit = static_cast<size_t>(copy.unitBytes);
  for (int64_t linear = 0; linear < total; ++linear) {
    int64_t rest = linear, from = copy.srcOffset, to = copy.dstOffset;
    for (int dim = copy.rank - 1; dim >= 0; --dim) {
      const int64_t index = rest % copy.extent[dim];
      rest /= copy.extent[dim];
      from += index * copy.srcStride[dim];
      to += index * copy.dstStride[dim];
    }
    std::memcpy(dst + static_cast<size_t>(to) * unit, src + static_cast<size_t>(from) * unit, unit);
  }
}

}  // namespace reshardctl
