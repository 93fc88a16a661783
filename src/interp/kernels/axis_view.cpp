#include "interp/kernels/axis_view.h"

#include <algorithm>

namespace reshardctl {

AxisView::AxisView(const Shape& shape, size_t axis) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < axis) outer *= shape[d];
    else if (d == axis) n = shape[d];
    else inner *= shape[d];
  }
}

std::vector<size_t> reductionAxes(const std::vector<int64_t>& axes, size_t rank, bool all) {
  std::vector<size_t> out;
  if (all || axes.empty() || rank == 0) {  // a 0-D tensor reduces to itself
    for (size_t d = 0; d < rank; ++d) out.push_back(d);
    return out;
  }
  for (int64_t axis : axes) out.push_back(normalizeAxis(axis, rank));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Shape reducedShape(const Shape& shape, const std::vector<size_t>& axes, bool keepdim) {
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), d);
    if (!reduced) out.push_back(shape[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

std::vector<int64_t> reductionTargets(const Shape& shape, const std::vector<size_t>& axes) {
  return broadcastOffsets(reducedShape(shape, axes, true), shape);
}

int64_t reducedCount(const Shape& shape, const std::vector<size_t>& axes) {
  int64_t count = 1;
  for (size_t axis : axes) count *= shape[axis];
  return count;
}

}  // namespace reshardctl
