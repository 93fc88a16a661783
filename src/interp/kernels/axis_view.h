// Helpers for kernels that work along one axis or over a set of axes: a tensor
// seen as [outer, n, inner] around an axis, and the reduction of chosen axes.
#pragma once

#include <cstdint>
#include <vector>

#include "interp/tensor.h"

namespace reshardctl {

// A tensor of `shape` seen as [outer, n, inner] around `axis`: element
// (o, k, i) is at (o * n + k) * inner + i.
struct AxisView {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;

  AxisView(const Shape& shape, size_t axis);
  size_t at(int64_t o, int64_t k, int64_t i) const { return static_cast<size_t>((o * n + k) * inner + i); }
};

// The axes a reduction works on: `axes` normalised and sorted; empty `axes`
// (or `all`) means every axis.
std::vector<size_t> reductionAxes(const std::vector<int64_t>& axes, size_t rank, bool all = false);

// `shape` with the reduced axes set to 1 (keepdim) or removed.
Shape reducedShape(const Shape& shape, const std::vector<size_t>& axes, bool keepdim);

// For every element of a tensor of `shape`, the offset of the element it
// reduces into (in the keepdim shape).
std::vector<int64_t> reductionTargets(const Shape& shape, const std::vector<size_t>& axes);

// How many elements are reduced into each output element.
int64_t reducedCount(const Shape& shape, const std::vector<size_t>& axes);

}  // namespace reshardctl
