// Reductions over axes (sum, mean, max, min, prod, squared_l2_norm), the
// softmax family along one axis, and their grads. The axes are an IntArray:
// an attribute (`axis:(pd_op.IntArray)[]` in 2024 dumps) or a full_int_array
// operand (ops.yaml: sum(x, IntArray axis, dtype, keepdim)); empty = all axes.
// A rank reduces its local piece: the partial result the layout must declare
// (Paddle's ReductionInferSpmdBase: SUM for sum, AVG for mean, MAX for max).
#include <cmath>
#include <limits>

#include "interp/kernels/axis_view.h"
#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

enum class Fold { Sum, Mean, Max, Min, Prod };

Tensor reduce(const Tensor& x, const std::vector<size_t>& axes, bool keepdim, Fold fold) {
  const double init = fold == Fold::Max   ? -std::numeric_limits<double>::infinity()
                      : fold == Fold::Min ? std::numeric_limits<double>::infinity()
                      : fold == Fold::Prod ? 1.0
                                           : 0.0;
  Tensor out = Tensor::filled(reducedShape(x.shape, axes, true), init, x.dtype);
  const std::vector<int64_t> targets = reductionTargets(x.shape, axes);
  for (size_t i = 0; i < targets.size(); ++i) {
    double& acc = out[targets[i]];
    const double v = x.data[i];
    switch (fold) {
      case Fold::Sum:
      case Fold::Mean: acc += v; break;
      case Fold::Max: acc = std::isnan(v) || v > acc ? v : acc; break;
      case Fold::Min: acc = std::isnan(v) || v < acc ? v : acc; break;
      case Fold::Prod: acc *= v; break;
    }
  }
  if (fold == Fold::Mean) {
    const double count = static_cast<double>(reducedCount(x.shape, axes));
    for (double& v : out.data) v /= count;
  }
  out.shape = reducedShape(x.shape, axes, keepdim);
  return out;
}

void reduceKernel(KernelContext& c, Fold fold) {
  const Tensor& x = c.in(0);
  const std::vector<size_t> axes = reductionAxes(c.intArray(1, "axis"), x.rank(), c.attrs().boolean("reduce_all", false));
  c.setOut(0, reduce(x, axes, c.attrs().boolean("keepdim", false), fold));
}

void sum(KernelContext& c) { reduceKernel(c, Fold::Sum); }
void mean(KernelContext& c) { reduceKernel(c, Fold::Mean); }
void max(KernelContext& c) { reduceKernel(c, Fold::Max); }
void min(KernelContext& c) { reduceKernel(c, Fold::Min); }
void prod(KernelContext& c) { reduceKernel(c, Fold::Prod); }
void meanAll(KernelContext& c) { c.setOut(0, reduce(c.in(0), reductionAxes({}, c.in(0).rank()), false, Fold::Mean)); }

// squared_l2_norm(x): the sum of squares, shaped as its result ([1]).
void squaredL2Norm(KernelContext& c) {
  double total = 0;
  for (double v : c.in(0).data) total += v * v;
  const Shape shape = completeShape(c.resultShape(0), 1, 1);
  c.setOut(0, Tensor::filled(shape, total, c.resultDType(0)));
}
void squaredL2NormGrad(KernelContext& c) {
  if (c.in(1).data.empty()) throw KernelError("out_grad holds no element");
  const double g = c.in(1).data.front();
  Tensor out = c.in(0);
  for (double& v : out.data) v *= 2.0 * g;
  c.setOut(0, std::move(out));
}

// The out_grad of a reduction spread back over x: grad[i] = og[target(i)] * w(i).
template <typename Weight>
Tensor spreadGrad(const Tensor& x, const Tensor& outGrad, const std::vector<size_t>& axes, Weight weight) {
  const std::vector<int64_t> targets = reductionTargets(x.shape, axes);
  if (outGrad.numel() != numelOf(reducedShape(x.shape, axes, true)))
    throw KernelError("the out_grad does not have the reduced shape");
  Tensor out = Tensor::filled(x.shape, 0.0, x.dtype);
  for (size_t i = 0; i < targets.size(); ++i) out.data[i] = outGrad[targets[i]] * weight(i, targets[i]);
  return out;
}

std::vector<size_t> gradAxes(const KernelContext& c, size_t axisOperand) {
  return reductionAxes(c.intArray(axisOperand, "axis"), c.in(0).rank(), c.attrs().boolean("reduce_all", false));
}

// sum_grad(x, out_grad, axis, keepdim, reduce_all)
void sumGrad(KernelContext& c) {
  c.setOut(0, spreadGrad(c.in(0), c.in(1), gradAxes(c, 2), [](size_t, int64_t) { return 1.0; }));
}
// mean_grad(x, out_grad, axis, keepdim, reduce_all): divided by the count of
// reduced elements of this (local) x, as the phi kernel does.
void meanGrad(KernelContext& c) {
  const std::vector<size_t> axes = gradAxes(c, 2);
  const double count = static_cast<double>(reducedCount(c.in(0).shape, axes));
  c.setOut(0, spreadGrad(c.in(0), c.in(1), axes, [=](size_t, int64_t) { return 1.0 / count; }));
}
// max_grad(x, out, out_grad, axis, keepdim, reduce_all): every element equal
// to the max takes the grad (Paddle's composite max_grad).
void maxGrad(KernelContext& c) {
  const Tensor& x = c.in(0);
  const Tensor& out = c.in(1);
  const std::vector<size_t> axes = gradAxes(c, 3);
  if (out.numel() != numelOf(reducedShape(x.shape, axes, true))) throw KernelError("out does not have the reduced shape");
  c.setOut(0, spreadGrad(x, c.in(2), axes,
                         [&](size_t i, int64_t t) { return x.data[i] == out[t] ? 1.0 : 0.0; }));
}

// ---- softmax family, along `axis` ----

Tensor softmaxAlong(const Tensor& x, size_t axis, bool logarithm) {
  const AxisView v(x.shape, axis);
  Tensor out = x;
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < v.n; ++k) top = std::max(top, x.data[v.at(o, k, i)]);
      double total = 0;
      for (int64_t k = 0; k < v.n; ++k) total += std::exp(x.data[v.at(o, k, i)] - top);
      for (int64_t k = 0; k < v.n; ++k) {
        const double shifted = x.data[v.at(o, k, i)] - top;
        out.data[v.at(o, k, i)] = logarithm ? shifted - std::log(total) : std::exp(shifted) / total;
      }
    }
  }
  return out;
}

size_t axisOf(const KernelContext& c, const Tensor& t) { return normalizeAxis(c.attrs().integer("axis", -1), t.rank()); }

void softmax(KernelContext& c) { c.setOut(0, softmaxAlong(c.in(0), axisOf(c, c.in(0)), false)); }
void logSoftmax(KernelContext& c) { c.setOut(0, softmaxAlong(c.in(0), axisOf(c, c.in(0)), true)); }

// softmax_grad(out, out_grad, axis): g*out - out*sum(g*out);
// log_softmax_grad(out, out_grad, axis): g - exp(out)*sum(g).
void softmaxGradKernel(KernelContext& c, bool logarithm) {
  const Tensor& out = c.in(0);
  const Tensor& g = c.in(1);
  if (out.shape != g.shape) throw KernelError("out and out_grad differ in shape");
  const AxisView v(out.shape, axisOf(c, out));
  Tensor dx = out;
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      double total = 0;
      for (int64_t k = 0; k < v.n; ++k) {
        const size_t at = v.at(o, k, i);
        total += logarithm ? g.data[at] : g.data[at] * out.data[at];
      }
      for (int64_t k = 0; k < v.n; ++k) {
        const size_t at = v.at(o, k, i);
        dx.data[at] = logarithm ? g.data[at] - std::exp(out.data[at]) * total : out.data[at] * (g.data[at] - total);
      }
    }
  }
  c.setOut(0, std::move(dx));
}
void softmaxGrad(KernelContext& c) { softmaxGradKernel(c, false); }
void logSoftmaxGrad(KernelContext& c) { softmaxGradKernel(c, true); }

constexpr KernelRow kRows[] = {
    {"pd_op.sum", sum},
    {"pd_op.mean", mean},
    {"pd_op.max", max},
    {"pd_op.min", min},
    {"pd_op.prod", prod},
    {"pd_op.mean_all", meanAll},
    {"pd_op.squared_l2_norm", squaredL2Norm},
    {"pd_op.squared_l2_norm_grad", squaredL2NormGrad},
    {"pd_op.sum_grad", sumGrad},
    {"pd_op.mean_grad", meanGrad},
    {"pd_op.max_grad", maxGrad},
    {"pd_op.softmax", softmax},
    {"pd_op.log_softmax", logSoftmax},
    {"pd_op.softmax_grad", softmaxGrad},
    {"pd_op.log_softmax_grad", logSoftmaxGrad},
};

}  // namespace

std::span<const KernelRow> reductionKernels() { return kRows; }

}  // namespace reshardctl
