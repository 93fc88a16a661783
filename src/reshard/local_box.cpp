#include "reshard/local_box.h"

#include <algorithm>

namespace reshardctl {

int64_t Box::volume() const {
  int64_t volume = 1;
  for (size_t dim = 0; dim < rank(); ++dim) volume *= std::max<int64_t>(extent(dim), 0);
  return volume;
}

Box fullBox(const std::vector<int64_t>& shape) {
  return {std::vector<int64_t>(shape.size(), 0), shape};
}

Box intersect(const Box& a, const Box& b) {
  Box result = a;
  for (size_t dim = 0; dim < a.rank(); ++dim) {
    result.begin[dim] = std::max(a.begin[dim], b.begin[dim]);
    result.end[dim] = std::max(result.begin[dim], std::min(a.end[dim], b.end[dim]));
  }
  return result;
}

bool contains(const Box& outer, const Box& inner) {
  if (inner.empty()) return true;
  for (size_t dim = 0; dim < outer.rank(); ++dim)
    if (inner.begin[dim] < outer.begin[dim] || inner.end[dim] > outer.end[dim]) return false;
  return true;
}

int64_t chunkSize(int64_t size, int64_t count) { return (size + count - 1) / count; }

std::pair<int64_t, int64_t> chunkRange(int64_t size, int64_t count, int64_t index) {
  const int64_t chunk = chunkSize(size, count);
  const int64_t begin = std::min(index * chunk, size);
  return {begin, std::min(begin + chunk, size)};
}

Box localBox(const std::vector<int64_t>& shape, const Layout& layout, const MeshCoord& coord) {
  Box box = fullBox(shape);
  for (size_t meshDim = 0; meshDim < layout.placements.size(); ++meshDim) {
    const Placement& placement = layout.placements[meshDim];
    if (!placement.isShard()) continue;
    const size_t dim = static_cast<size_t>(placement.dim);
    const auto [begin, end] = chunkRange(shape[dim], layout.mesh.shape[meshDim], coord[meshDim]);
    box.begin[dim] = begin;
    box.end[dim] = end;
  }
  return box;
}

std::vector<int64_t> paddedLocalShape(const std::vector<int64_t>& shape, const Layout& layout) {
  std::vector<int64_t> local = shape;
  for (size_t meshDim = 0; meshDim < layout.placements.size(); ++meshDim) {
    const Placement& placement = layout.placements[meshDim];
    if (!placement.isShard()) continue;
    const size_t dim = static_cast<size_t>(placement.dim);
    local[dim] = chunkSize(shape[dim], layout.mesh.shape[meshDim]);
  }
  return local;
}

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t extent : shape)
    if (__builtin_mul_overflow(count, extent, &count)) return INT64_MAX;  // saturate, never wrap
  return count;
}

}  // namespace reshardctl
