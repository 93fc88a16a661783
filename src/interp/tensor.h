// The values the interpreter computes with: a dense row-major tensor held in
// double (so that only real divergence shows, never rounding), tagged with the
// element type its program value has; or a list of tensors (`vec[...]`, what
// builtin.combine makes). One Tensor type serves the serial program and every
// rank alike: a rank's tensor is just its local piece.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"

namespace reshardctl {

using Shape = std::vector<int64_t>;

// The op cannot run on these inputs: shapes that do not fit, an attribute it
// cannot read, an index out of range. On the serial program this makes the op
// "not simulated"; on a rank it is a divergence (the rank would fail too).
class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Tensor {
  Shape shape;
  std::vector<double> data;  // row-major
  DType dtype = DType::F32;
  bool isList = false;
  std::vector<Tensor> items;  // isList: the tensors of the vector

  static Tensor filled(Shape shape, double value, DType dtype);
  static Tensor list(std::vector<Tensor> items);

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  size_t rank() const { return shape.size(); }
  double operator[](int64_t i) const { return data[static_cast<size_t>(i)]; }
  double& operator[](int64_t i) { return data[static_cast<size_t>(i)]; }
};

// The element count of `shape`, saturating at INT64_MAX (0 with a zero dim).
int64_t numelOf(const Shape& shape);
// The most elements one tensor may hold (2^27: a GiB of doubles); Tensor::filled
// refuses more, and a negative dim, with a KernelError.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 27;

// `value` as an integer (an index, an id, a count); KernelError when it is
// not a whole number in int64's range.
int64_t toInteger(double value, std::string_view what);
Shape stridesOf(const Shape& shape);  // row-major element strides
std::string shapeText(const Shape& shape);  // "4x8", "0-D" for a scalar

// `axis` (negative counts from the end) as an index below `rank`; KernelError otherwise.
size_t normalizeAxis(int64_t axis, size_t rank);

// numpy broadcasting of two shapes (aligned at the last dim); KernelError when
// they do not broadcast.
Shape broadcastShapes(const Shape& a, const Shape& b);

// Element offsets into a tensor of shape `from` for every element of `to`
// (row-major); KernelError unless `from` broadcasts to `to`.
std::vector<int64_t> broadcastOffsets(const Shape& from, const Shape& to);

// Sums `t` down to `shape` over the dims broadcasting added or stretched: the
// gradient of a broadcast operand.
Tensor reduceToShape(const Tensor& t, const Shape& shape);

// The same elements under another shape of equal element count.
Tensor reshaped(Tensor t, Shape shape);

}  // namespace reshardctl
