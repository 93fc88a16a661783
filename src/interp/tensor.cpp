#include "interp/tensor.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace reshardctl {

Tensor Tensor::filled(Shape shape, double value, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) throw KernelError(fmt::format("a tensor of shape {} cannot exist", shapeText(shape)));
  if (numelOf(shape) > kMaxTensorElements)
    throw KernelError(fmt::format("a {} tensor is too large to simulate (at most {} elements)", shapeText(shape),
                                  kMaxTensorElements));
  Tensor t;
  t.data.assign(static_cast<size_t>(numelOf(shape)), value);
  t.shape = std::move(shape);
  t.dtype = dtype;
  return t;
}

Tensor Tensor::list(std::vector<Tensor> items) {
  Tensor t;
  t.isList = true;
  t.items = std::move(items);
  return t;
}

int64_t numelOf(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == 0) return 0;
    n = d > 0 && n > std::numeric_limits<int64_t>::max() / d ? std::numeric_limits<int64_t>::max() : n * d;
  }
  return n;
}

int64_t toInteger(double value, std::string_view what) {
  constexpr double kLimit = 9.2e18;  // just inside int64's range
  if (!(std::fabs(value) < kLimit) || value != std::trunc(value))
    throw KernelError(fmt::format("{} {} is not an integer", what, value));
  return static_cast<int64_t>(value);
}

Shape stridesOf(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::string shapeText(const Shape& shape) {
  return shape.empty() ? std::string("0-D") : fmt::format("{}", fmt::join(shape, "x"));
}

size_t normalizeAxis(int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    throw KernelError(fmt::format("axis {} is out of range for a {}-D tensor", axis, rank));
  return static_cast<size_t>(a);
}

Shape broadcastShapes(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (da != db && da != 1 && db != 1)
      throw KernelError(fmt::format("shapes {} and {} do not broadcast", shapeText(a), shapeText(b)));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> broadcastOffsets(const Shape& from, const Shape& to) {
  // Strides of `from` laid over `to`: 0 where `from` is missing or of size 1.
  bool fits = from.size() <= to.size();
  for (size_t i = 0; fits && i < from.size(); ++i) fits = from[i] == 1 || from[i] == to[to.size() - from.size() + i];
  if (!fits || numelOf(to) > kMaxTensorElements)
    throw KernelError(fmt::format("shape {} does not broadcast to {}", shapeText(from), shapeText(to)));
  const size_t lead = to.size() - from.size();
  const Shape fromStrides = stridesOf(from);
  Shape strides(to.size(), 0);
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1) strides[lead + i] = fromStrides[i];
  std::vector<int64_t> offsets(static_cast<size_t>(numelOf(to)));
  Shape index(to.size(), 0);
  int64_t offset = 0;
  for (size_t n = 0; n < offsets.size(); ++n) {
    offsets[n] = offset;
    for (size_t d = to.size(); d-- > 0;) {  // odometer step, keeping the offset current
      if (++index[d] < to[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (to[d] - 1);
      index[d] = 0;
    }
  }
  return offsets;
}

Tensor reduceToShape(const Tensor& t, const Shape& shape) {
  if (t.shape == shape) return t;
  Tensor out = Tensor::filled(shape, 0.0, t.dtype);
  const std::vector<int64_t> offsets = broadcastOffsets(shape, t.shape);
  for (size_t i = 0; i < offsets.size(); ++i) out.data[static_cast<size_t>(offsets[i])] += t.data[i];
  return out;
}

Tensor reshaped(Tensor t, Shape shape) {
  if (numelOf(shape) != t.numel())
    throw KernelError(fmt::format("cannot view {} elements as {}", t.numel(), shapeText(shape)));
  t.shape = std::move(shape);
  return t;
}

}  // namespace reshardctl
