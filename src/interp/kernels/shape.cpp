// Ops that move elements without arithmetic: reshape and its kin, transpose,
// concat / split / stack, slice, gather, expand, tril / triu, and the builtin
// list ops. Ops whose attributes carry a global target shape (reshape, expand)
// build the shape their result has here (ExecutionSite::resultShape): that is
// how a rank localises them. Offsets and sections stay global: an op that
// slices, splits or gathers along a sharded axis computes what that rank
// would, and the comparison tells.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interp/kernels/axis_view.h"
#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

// Results beyond the first that only carry a shape (reshape's old `xshape`,
// whose first dim is 0): empty tensors of their type's shape.
void fillShapeResults(KernelContext& c) {
  for (size_t i = 1; i < c.numResults(); ++i)
    c.setOut(i, Tensor::filled(completeShape(c.resultShape(i), -1, 0), 0.0, c.resultDType(i)));
}

// reshape / flatten / squeeze / unsqueeze and their grads: the elements of
// `source` viewed in the result's shape. The grads take (x or the old xshape,
// out_grad, ...): out_grad is operand 1.
void view(KernelContext& c, size_t source) {
  const Tensor& x = c.in(source);
  c.setOut(0, reshaped(x, completeShape(c.resultShape(0), x.numel(), c.site().dynamicDim())));
  fillShapeResults(c);
}
void viewForward(KernelContext& c) { view(c, 0); }
void viewGrad(KernelContext& c) { view(c, 1); }

Tensor transposed(const Tensor& x, const std::vector<int64_t>& perm) {
  if (perm.size() != x.rank()) throw KernelError(fmt::format("perm of {} axes for a {}-D tensor", perm.size(), x.rank()));
  Shape shape(perm.size());
  const Shape inStrides = stridesOf(x.shape);
  Shape strides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    const size_t from = normalizeAxis(perm[d], x.rank());
    shape[d] = x.shape[from];
    strides[d] = inStrides[from];
  }
  Tensor out = Tensor::filled(shape, 0.0, x.dtype);
  Shape index(shape.size(), 0);
  for (size_t n = 0; n < out.data.size(); ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d) offset += index[d] * strides[d];
    out.data[n] = x[offset];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

void transpose(KernelContext& c) { c.setOut(0, transposed(c.in(0), c.attrs().integers("perm"))); }
// transpose_grad(out_grad, perm): the inverse permutation.
void transposeGrad(KernelContext& c) {
  const std::vector<int64_t> perm = c.attrs().integers("perm");
  std::vector<int64_t> inverse(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) inverse[normalizeAxis(perm[d], perm.size())] = static_cast<int64_t>(d);
  c.setOut(0, transposed(c.in(0), inverse));
}

// Pieces glued along `axis` (concat), or cut from one tensor (split).
Tensor concatenated(const std::vector<Tensor>& parts, size_t axis) {
  if (parts.empty()) throw KernelError("concat of no tensors");
  Shape shape = parts.front().shape;
  if (axis >= shape.size()) throw KernelError("concat axis out of range");
  shape[axis] = 0;
  for (const Tensor& p : parts) {
    Shape other = p.shape;
    if (other.size() != shape.size()) throw KernelError("concat of tensors of different ranks");
    shape[axis] += other[axis];
    other[axis] = 0;
    Shape expect = shape;
    expect[axis] = 0;
    if (other != expect) throw KernelError(fmt::format("concat of {} with {}", shapeText(p.shape), shapeText(parts.front().shape)));
  }
  Tensor out = Tensor::filled(shape, 0.0, parts.front().dtype);
  const AxisView v(shape, axis);
  int64_t at = 0;
  for (const Tensor& p : parts) {
    const AxisView pv(p.shape, axis);
    for (int64_t o = 0; o < pv.outer; ++o)
      for (int64_t k = 0; k < pv.n; ++k)
        for (int64_t i = 0; i < pv.inner; ++i) out.data[v.at(o, at + k, i)] = p.data[pv.at(o, k, i)];
    at += pv.n;
  }
  return out;
}

std::vector<Tensor> splitAlong(const Tensor& x, size_t axis, std::vector<int64_t> sections) {
  if (axis >= x.rank()) throw KernelError("split axis out of range");
  const int64_t total = x.shape[axis];
  const auto unknown = std::find(sections.begin(), sections.end(), -1);
  if (unknown != sections.end()) {  // one section may be -1: the rest
    *unknown = 0;
    *unknown = total - std::accumulate(sections.begin(), sections.end(), int64_t{0});
  }
  if (std::accumulate(sections.begin(), sections.end(), int64_t{0}) != total)
    throw KernelError(fmt::format("sections [{}] do not add up to {}", fmt::join(sections, ","), total));
  const AxisView v(x.shape, axis);
  std::vector<Tensor> parts;
  int64_t at = 0;
  for (int64_t n : sections) {
    Shape shape = x.shape;
    shape[axis] = n;
    Tensor part = Tensor::filled(shape, 0.0, x.dtype);
    const AxisView pv(shape, axis);
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = 0; i < v.inner; ++i) part.data[pv.at(o, k, i)] = x.data[v.at(o, at + k, i)];
    parts.push_back(std::move(part));
    at += n;
  }
  return parts;
}

const std::vector<Tensor>& listOperand(const KernelContext& c, size_t i) {
  if (!c.in(i).isList) throw KernelError(fmt::format("operand {} is not a tensor list", i));
  return c.in(i).items;
}

// concat(Tensor[] x, Scalar axis): the axis is a pd_op.full operand or an attribute.
void concat(KernelContext& c) {
  const std::vector<Tensor>& parts = listOperand(c, 0);
  const auto axis = toInteger(c.scalar(1, "axis", 0.0), "axis");
  c.setOut(0, concatenated(parts, normalizeAxis(axis, parts.empty() ? 0 : parts.front().rank())));
}
// concat_grad(Tensor[] x, out_grad, Scalar axis) -> Tensor[] x_grad
void concatGrad(KernelContext& c) {
  const std::vector<Tensor>& parts = listOperand(c, 0);
  const Tensor& g = c.in(1);
  const size_t axis = normalizeAxis(toInteger(c.scalar(2, "axis", 0.0), "axis"), g.rank());
  std::vector<int64_t> sections;
  for (const Tensor& p : parts) sections.push_back(axis < p.rank() ? p.shape[axis] : 0);
  c.setOut(0, Tensor::list(splitAlong(g, axis, sections)));
}
// split(x, IntArray sections, Scalar axis) -> Tensor[]
void split(KernelContext& c) {
  const Tensor& x = c.in(0);
  const size_t axis = normalizeAxis(toInteger(c.scalar(2, "axis", 0.0), "axis"), x.rank());
  c.setOut(0, Tensor::list(splitAlong(x, axis, c.intArray(1, "sections"))));
}
// split_with_num(x, int num, Scalar axis) -> Tensor[]
void splitWithNum(KernelContext& c) {
  const Tensor& x = c.in(0);
  const size_t axis = normalizeAxis(toInteger(c.scalar(1, "axis", 0.0), "axis"), x.rank());
  const int64_t num = c.attrs().integer("num", 1);
  if (num <= 0 || x.shape[axis] % num != 0)
    throw KernelError(fmt::format("cannot split {} elements into {} equal parts", x.shape[axis], num));
  c.setOut(0, Tensor::list(splitAlong(x, axis, std::vector<int64_t>(static_cast<size_t>(num), x.shape[axis] / num))));
}
// split_grad(Tensor[] out_grad, Scalar axis): concat of the grads.
void splitGrad(KernelContext& c) {
  const std::vector<Tensor>& parts = listOperand(c, 0);
  const auto axis = toInteger(c.scalar(1, "axis", -1.0), "axis");
  c.setOut(0, concatenated(parts, normalizeAxis(axis, parts.empty() ? 0 : parts.front().rank())));
}
// stack(Tensor[] x, int axis)
void stack(KernelContext& c) {
  std::vector<Tensor> parts = listOperand(c, 0);
  if (parts.empty()) throw KernelError("stack of no tensors");
  const size_t axis = normalizeAxis(c.attrs().integer("axis", 0), parts.front().rank() + 1);
  for (Tensor& p : parts) {
    Shape shape = p.shape;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), 1);
    p = reshaped(std::move(p), shape);
  }
  c.setOut(0, concatenated(parts, axis));
}

// The [begin, end) each sliced axis keeps, as phi's slice clamps them.
struct SliceBox {
  Shape begin;
  Shape end;
};

SliceBox sliceBox(const KernelContext& c, const Shape& shape, size_t startsOperand) {
  const std::vector<int64_t> axes = c.attrs().integers("axes");
  const std::vector<int64_t> starts = c.intArray(startsOperand, "starts");
  const std::vector<int64_t> ends = c.intArray(startsOperand + 1, "ends");
  if (starts.size() != axes.size() || ends.size() != axes.size()) throw KernelError("slice: axes, starts and ends differ in length");
  SliceBox box{Shape(shape.size(), 0), shape};
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t axis = normalizeAxis(axes[i], shape.size());
    const int64_t dim = shape[axis];
    auto clamp = [dim](int64_t v) { return std::clamp(v < 0 ? v + dim : v, int64_t{0}, dim); };
    box.begin[axis] = clamp(starts[i]);
    box.end[axis] = std::max(box.begin[axis], clamp(ends[i]));
  }
  return box;
}

// Calls f(inputOffset, boxOffset) for every element of the box.
template <typename F>
void forEachInBox(const Shape& shape, const SliceBox& box, F f) {
  Shape extent(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) extent[d] = box.end[d] - box.begin[d];
  const int64_t count = numelOf(extent);
  const Shape strides = stridesOf(shape);
  Shape index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d) offset += (box.begin[d] + index[d]) * strides[d];
    f(offset, n);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < extent[d]) break;
      index[d] = 0;
    }
  }
}

Shape slicedShape(const KernelContext& c, const SliceBox& box) {
  const std::vector<int64_t> decrease = c.attrs().integers("decrease_axis");
  Shape shape;
  for (size_t d = 0; d < box.begin.size(); ++d) {
    const bool dropped = std::find(decrease.begin(), decrease.end(), static_cast<int64_t>(d)) != decrease.end();
    if (!dropped) shape.push_back(box.end[d] - box.begin[d]);
  }
  return shape;
}

// slice(input, int64_t[] axes, IntArray starts, IntArray ends, infer_flags, decrease_axis)
void slice(KernelContext& c) {
  const Tensor& x = c.in(0);
  const SliceBox box = sliceBox(c, x.shape, 1);
  Tensor out = Tensor::filled(slicedShape(c, box), 0.0, x.dtype);
  forEachInBox(x.shape, box, [&](int64_t from, int64_t to) { out[to] = x[from]; });
  c.setOut(0, std::move(out));
}
// slice_grad(input, out_grad, axes, starts, ends, infer_flags, decrease_axis)
void sliceGrad(KernelContext& c) {
  const Tensor& x = c.in(0);
  const Tensor& g = c.in(1);
  const SliceBox box = sliceBox(c, x.shape, 2);
  if (g.numel() != numelOf(slicedShape(c, box))) throw KernelError("out_grad does not have the slice's shape");
  Tensor dx = Tensor::filled(x.shape, 0.0, g.dtype);
  forEachInBox(x.shape, box, [&](int64_t to, int64_t from) { dx[to] = g[from]; });
  c.setOut(0, std::move(dx));
}

// gather(x, index, Scalar axis): x's `axis` replaced by the index's elements.
void gather(KernelContext& c) {
  const Tensor& x = c.in(0);
  const Tensor& index = c.in(1);
  const size_t axis = normalizeAxis(toInteger(c.scalar(2, "axis", 0.0), "axis"), x.rank());
  const AxisView v(x.shape, axis);
  Shape shape = x.shape;
  shape[axis] = index.numel();
  Tensor out = Tensor::filled(shape, 0.0, x.dtype);
  const AxisView ov(shape, axis);
  for (int64_t k = 0; k < index.numel(); ++k) {
    const int64_t from = toInteger(index[k], "gather index");
    if (from < 0 || from >= v.n) throw KernelError(fmt::format("gather index {} is out of range [0, {})", from, v.n));
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) out.data[ov.at(o, k, i)] = x.data[v.at(o, from, i)];
  }
  c.setOut(0, std::move(out));
}
// gather_grad(x, index, out_grad, Scalar axis): scatter-add into zeros like x.
void gatherGrad(KernelContext& c) {
  const Tensor& x = c.in(0);
  const Tensor& index = c.in(1);
  const Tensor& g = c.in(2);
  const size_t axis = normalizeAxis(toInteger(c.scalar(3, "axis", 0.0), "axis"), x.rank());
  const AxisView v(x.shape, axis);
  Shape gathered = x.shape;
  gathered[axis] = index.numel();
  if (g.shape != gathered) throw KernelError(fmt::format("out_grad is {}, not {}", shapeText(g.shape), shapeText(gathered)));
  const AxisView gv(g.shape, axis);
  Tensor dx = Tensor::filled(x.shape, 0.0, g.dtype);
  for (int64_t k = 0; k < index.numel() && k < gv.n; ++k) {
    const int64_t to = toInteger(index[k], "gather index");
    if (to < 0 || to >= v.n) throw KernelError(fmt::format("gather index {} is out of range [0, {})", to, v.n));
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) dx.data[v.at(o, to, i)] += g.data[gv.at(o, k, i)];
  }
  c.setOut(0, std::move(dx));
}

// expand(x, IntArray shape): x broadcast to the result's shape; a -1 keeps x's dim.
void expand(KernelContext& c) {
  const Tensor& x = c.in(0);
  Shape target = c.resultShape(0);
  for (size_t d = 0; d < target.size(); ++d) {
    const size_t lead = target.size() - x.rank();
    if (target[d] < 0) target[d] = d >= lead ? x.shape[d - lead] : c.site().dynamicDim();
  }
  broadcastShapes(x.shape, target);
  const std::vector<int64_t> from = broadcastOffsets(x.shape, target);
  Tensor out = Tensor::filled(target, 0.0, x.dtype);
  for (size_t i = 0; i < from.size(); ++i) out.data[i] = x[from[i]];
  c.setOut(0, std::move(out));
}
// expand_grad(x, out_grad, shape): summed back to x's shape.
void expandGrad(KernelContext& c) { c.setOut(0, reduceToShape(c.in(1), c.in(0).shape)); }

// tril / triu(x, int diagonal) on the last two dims, by global row and
// column: a rank's piece knows where it sits (ExecutionSite::operandOffset).
void triangle(KernelContext& c, bool lower) {
  const Tensor& x = c.in(0);
  if (x.rank() < 2) throw KernelError("tril/triu need at least 2 dims");
  const int64_t diagonal = c.attrs().integer("diagonal", 0);
  const Shape offset = c.site().operandOffset(0);
  const int64_t rows = x.shape[x.rank() - 2];
  const int64_t cols = x.shape[x.rank() - 1];
  const int64_t row0 = offset.at(x.rank() - 2);
  const int64_t col0 = offset.at(x.rank() - 1);
  Tensor out = x;
  for (int64_t n = 0; n < x.numel(); ++n) {
    const int64_t col = n % cols + col0;
    const int64_t row = (n / cols) % rows + row0;
    const bool keep = lower ? col - row <= diagonal : col - row >= diagonal;
    if (!keep) out[n] = 0.0;
  }
  c.setOut(0, std::move(out));
}
void tril(KernelContext& c) { triangle(c, true); }
void triu(KernelContext& c) { triangle(c, false); }

// builtin.combine(a, b, ...) -> vec[...]; builtin.split(vec) -> a, b, ...;
// builtin.slice(vec){index} -> one element.
void combine(KernelContext& c) {
  std::vector<Tensor> items;
  for (size_t i = 0; i < c.numInputs(); ++i) items.push_back(c.in(i));
  c.setOut(0, Tensor::list(std::move(items)));
}
void unpack(KernelContext& c) {
  const std::vector<Tensor>& items = listOperand(c, 0);
  if (items.size() != c.numResults())
    throw KernelError(fmt::format("builtin.split of {} tensors into {} results", items.size(), c.numResults()));
  for (size_t i = 0; i < items.size(); ++i) c.setOut(i, items[i]);
}
void pick(KernelContext& c) {
  const std::vector<Tensor>& items = listOperand(c, 0);
  const int64_t index = c.attrs().integer("index", 0);
  if (index < 0 || static_cast<size_t>(index) >= items.size()) throw KernelError("builtin.slice index out of range");
  c.setOut(0, items[static_cast<size_t>(index)]);
}

constexpr KernelRow kRows[] = {
    {"pd_op.reshape", viewForward},
    {"pd_op.flatten", viewForward},
    {"pd_op.squeeze", viewForward},
    {"pd_op.unsqueeze", viewForward},
    {"pd_op.reshape_grad", viewGrad},
    {"pd_op.flatten_grad", viewGrad},
    {"pd_op.squeeze_grad", viewGrad},
    {"pd_op.unsqueeze_grad", viewGrad},
    {"pd_op.transpose", transpose},
    {"pd_op.transpose_grad", transposeGrad},
    {"pd_op.concat", concat},
    {"pd_op.concat_grad", concatGrad},
    {"pd_op.split", split},
    {"pd_op.split_with_num", splitWithNum},
    {"pd_op.split_grad", splitGrad},
    {"pd_op.split_with_num_grad", splitGrad},
    {"pd_op.stack", stack},
    {"pd_op.slice", slice},
    {"pd_op.slice_grad", sliceGrad},
    {"pd_op.gather", gather},
    {"pd_op.gather_grad", gatherGrad},
    {"pd_op.expand", expand},
    {"pd_op.expand_grad", expandGrad},
    {"pd_op.tril", tril},
    {"pd_op.triu", triu},
    {"builtin.combine", combine},
    {"builtin.split", unpack},
    {"builtin.slice", pick},
};

}  // namespace

std::span<const KernelRow> shapeKernels() { return kRows; }

}  // namespace reshardctl
