// Network layers: layer_norm, rms_norm, cross_entropy_with_softmax,
// embedding, dropout, and their grads. Signatures from Paddle's ops.yaml and
// backward.yaml:
//   layer_norm(x, scale, bias, float epsilon, int begin_norm_axis) -> out, mean, variance
//   layer_norm_grad(x, scale, bias, mean, variance, out_grad, epsilon, begin_norm_axis)
//   rms_norm(x, bias, residual, norm_weight, norm_bias, epsilon, begin_norm_axis, quant_scale, ...)
//     -> out, residual_out, inv_var
//   rms_norm_grad(x, bias, residual, norm_weight, norm_bias, inv_var, out_grad, epsilon, ...)
//   cross_entropy_with_softmax(input, label, soft_label, use_softmax, numeric_stable_mode,
//     ignore_index, axis) -> softmax, loss
//   cross_entropy_with_softmax_grad(label, softmax, loss_grad, ...) -> input_grad
//   embedding(x, weight, padding_idx, sparse); embedding_grad(x, weight, out_grad, ...)
//   dropout(x, seed_tensor, Scalar p, is_test, mode, seed, fix_seed) -> out, mask
#include <cmath>

#include <fmt/format.h>

#include "interp/kernels/axis_view.h"
#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

// x seen as [rows, cols] split at begin_norm_axis.
struct Rows {
  int64_t rows = 1;
  int64_t cols = 1;
  Rows(const Shape& shape, int64_t beginNormAxis) {
    const size_t begin = normalizeAxis(beginNormAxis, shape.size());
    for (size_t d = 0; d < shape.size(); ++d) (d < begin ? rows : cols) *= shape[d];
  }
  size_t at(int64_t r, int64_t c) const { return static_cast<size_t>(r * cols + c); }
};

// A grad's operand that must hold `count` elements (a per-row statistic, an out_grad).
const Tensor& sized(const KernelContext& c, size_t operand, int64_t count, std::string_view what) {
  const Tensor& t = c.in(operand);
  if (t.numel() != count) throw KernelError(fmt::format("{} holds {} elements, not {}", what, t.numel(), count));
  return t;
}

double elementOr(const Tensor* t, int64_t i, double fallback) {
  if (t == nullptr) return fallback;
  if (t->numel() <= i) throw KernelError(fmt::format("a norm weight of {} elements is too short", t->numel()));
  return t->data[static_cast<size_t>(i)];
}

// The shape of a per-row statistic (mean, variance, inv_var): its type's.
Shape rowStatShape(const KernelContext& c, size_t result, int64_t rows) {
  return completeShape(c.resultShape(result), rows, rows);
}

void layerNorm(KernelContext& c) {
  const Tensor& x = c.in(0);
  const Tensor* scale = c.optionalIn(1);
  const Tensor* bias = c.optionalIn(2);
  const double eps = c.attrs().number("epsilon", 1e-5);
  const Rows r(x.shape, c.attrs().integer("begin_norm_axis", 1));
  Tensor out = x;
  Tensor mean = Tensor::filled({r.rows}, 0.0, x.dtype);
  Tensor var = Tensor::filled({r.rows}, 0.0, x.dtype);
  for (int64_t i = 0; i < r.rows; ++i) {
    double m = 0;
    for (int64_t j = 0; j < r.cols; ++j) m += x.data[r.at(i, j)];
    m /= static_cast<double>(r.cols);
    double v = 0;
    for (int64_t j = 0; j < r.cols; ++j) v += (x.data[r.at(i, j)] - m) * (x.data[r.at(i, j)] - m);
    v /= static_cast<double>(r.cols);
    const double rstd = 1.0 / std::sqrt(v + eps);
    for (int64_t j = 0; j < r.cols; ++j)
      out.data[r.at(i, j)] = (x.data[r.at(i, j)] - m) * rstd * elementOr(scale, j, 1.0) + elementOr(bias, j, 0.0);
    mean[i] = m;
    var[i] = v;
  }
  c.setOut(0, std::move(out));
  if (c.numResults() > 1) c.setOut(1, reshaped(std::move(mean), rowStatShape(c, 1, r.rows)));
  if (c.numResults() > 2) c.setOut(2, reshaped(std::move(var), rowStatShape(c, 2, r.rows)));
}

// dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = g * scale.
void layerNormGrad(KernelContext& c) {
  const Tensor& x = c.in(0);
  const Tensor* scale = c.optionalIn(1);
  const double eps = c.attrs().number("epsilon", 1e-5);
  const Rows r(x.shape, c.attrs().integer("begin_norm_axis", 1));
  const Tensor& mean = sized(c, 3, r.rows, "mean");
  const Tensor& var = sized(c, 4, r.rows, "variance");
  const Tensor& g = sized(c, 5, x.numel(), "out_grad");
  Tensor dx = x;
  Tensor dscale = Tensor::filled({r.cols}, 0.0, x.dtype);
  Tensor dbias = Tensor::filled({r.cols}, 0.0, x.dtype);
  std::vector<double> xhat(static_cast<size_t>(r.cols));
  std::vector<double> dxhat(static_cast<size_t>(r.cols));
  for (int64_t i = 0; i < r.rows; ++i) {
    const double rstd = 1.0 / std::sqrt(var[i] + eps);
    double meanD = 0;
    double meanDX = 0;
    for (int64_t j = 0; j < r.cols; ++j) {
      const size_t at = r.at(i, j);
      xhat[static_cast<size_t>(j)] = (x.data[at] - mean[i]) * rstd;
      dxhat[static_cast<size_t>(j)] = g.data[at] * elementOr(scale, j, 1.0);
      meanD += dxhat[static_cast<size_t>(j)];
      meanDX += dxhat[static_cast<size_t>(j)] * xhat[static_cast<size_t>(j)];
      dscale[j] += g.data[at] * xhat[static_cast<size_t>(j)];
      dbias[j] += g.data[at];
    }
    meanD /= static_cast<double>(r.cols);
    meanDX /= static_cast<double>(r.cols);
    for (int64_t j = 0; j < r.cols; ++j)
      dx.data[r.at(i, j)] = rstd * (dxhat[static_cast<size_t>(j)] - meanD - xhat[static_cast<size_t>(j)] * meanDX);
  }
  c.setOut(0, std::move(dx));
  if (c.numResults() > 1 && scale) c.setOut(1, reshaped(std::move(dscale), scale->shape));
  if (c.numResults() > 2 && c.optionalIn(2)) c.setOut(2, reshaped(std::move(dbias), c.in(2).shape));
}

// x + bias + residual: what rms_norm normalises (and returns as residual_out).
Tensor rmsInput(const KernelContext& c) {
  Tensor x = c.in(0);
  for (size_t operand : {size_t{1}, size_t{2}}) {
    const Tensor* extra = c.optionalIn(operand);
    if (!extra) continue;
    const std::vector<int64_t> at = broadcastOffsets(extra->shape, x.shape);
    for (size_t i = 0; i < x.data.size(); ++i) x.data[i] += (*extra)[at[i]];
  }
  return x;
}

void rmsNorm(KernelContext& c) {
  if (c.attrs().number("quant_scale", -1.0) > 0) throw KernelError("quantised rms_norm (quant_scale > 0)");
  const Tensor x = rmsInput(c);
  const Tensor* weight = c.optionalIn(3);
  const Tensor* normBias = c.optionalIn(4);
  const double eps = c.attrs().number("epsilon", 1e-6);
  const Rows r(x.shape, c.attrs().integer("begin_norm_axis", static_cast<int64_t>(x.rank()) - 1));
  Tensor out = x;
  Tensor invVar = Tensor::filled({r.rows}, 0.0, x.dtype);
  for (int64_t i = 0; i < r.rows; ++i) {
    double ms = 0;
    for (int64_t j = 0; j < r.cols; ++j) ms += x.data[r.at(i, j)] * x.data[r.at(i, j)];
    const double inv = 1.0 / std::sqrt(ms / static_cast<double>(r.cols) + eps);
    for (int64_t j = 0; j < r.cols; ++j)
      out.data[r.at(i, j)] = x.data[r.at(i, j)] * inv * elementOr(weight, j, 1.0) + elementOr(normBias, j, 0.0);
    invVar[i] = inv;
  }
  c.setOut(0, std::move(out));
  if (c.numResults() > 1 && c.hasInput(2)) c.setOut(1, x);
  if (c.numResults() > 2) c.setOut(2, reshaped(std::move(invVar), rowStatShape(c, 2, r.rows)));
}

// With y = xhat * w, xhat = x * inv: dx = inv * (dxhat - xhat * mean(dxhat * xhat)).
void rmsNormGrad(KernelContext& c) {
  const Tensor x = rmsInput(c);
  const Tensor* weight = c.optionalIn(3);
  const Rows r(x.shape, c.attrs().integer("begin_norm_axis", static_cast<int64_t>(x.rank()) - 1));
  const Tensor& invVar = sized(c, 5, r.rows, "inv_var");
  const Tensor& g = sized(c, 6, x.numel(), "out_grad");
  Tensor dx = x;
  Tensor dweight = Tensor::filled({r.cols}, 0.0, x.dtype);
  Tensor dbias = Tensor::filled({r.cols}, 0.0, x.dtype);
  for (int64_t i = 0; i < r.rows; ++i) {
    const double inv = invVar[i];
    double meanDX = 0;
    for (int64_t j = 0; j < r.cols; ++j) {
      const size_t at = r.at(i, j);
      const double xhat = x.data[at] * inv;
      meanDX += g.data[at] * elementOr(weight, j, 1.0) * xhat;
      dweight[j] += g.data[at] * xhat;
      dbias[j] += g.data[at];
    }
    meanDX /= static_cast<double>(r.cols);
    for (int64_t j = 0; j < r.cols; ++j) {
      const size_t at = r.at(i, j);
      dx.data[at] = inv * (g.data[at] * elementOr(weight, j, 1.0) - x.data[at] * inv * meanDX);
    }
  }
  c.setOut(0, std::move(dx));
  if (c.numResults() > 1 && weight) c.setOut(1, reshaped(std::move(dweight), weight->shape));
  if (c.numResults() > 2 && c.hasInput(4)) c.setOut(2, reshaped(std::move(dbias), c.in(4).shape));
}

// ---- cross entropy ----

struct CrossEntropyArgs {
  bool softLabel;
  int64_t ignoreIndex;
  size_t axis;
};

CrossEntropyArgs crossEntropyArgs(const KernelContext& c, const Tensor& logits) {
  if (!c.attrs().boolean("use_softmax", true)) throw KernelError("cross_entropy_with_softmax without softmax");
  return {c.attrs().boolean("soft_label", false), c.attrs().integer("ignore_index", -100),
          normalizeAxis(c.attrs().integer("axis", -1), logits.rank())};
}

// The class a hard label names, or -1 for ignore_index.
int64_t labelClass(double label, const CrossEntropyArgs& args, int64_t classes) {
  const int64_t cls = toInteger(label, "label");
  if (cls == args.ignoreIndex) return -1;
  if (cls < 0 || cls >= classes)
    throw KernelError(fmt::format("label {} is out of range for {} classes", cls, classes));
  return cls;
}

void crossEntropyWithSoftmax(KernelContext& c) {
  const Tensor& logits = c.in(0);
  const Tensor& label = c.in(1);
  const CrossEntropyArgs args = crossEntropyArgs(c, logits);
  const AxisView v(logits.shape, args.axis);
  Tensor softmax = logits;
  Shape lossShape = logits.shape;
  lossShape[args.axis] = 1;
  Tensor loss = Tensor::filled(lossShape, 0.0, logits.dtype);
  if (label.numel() != (args.softLabel ? logits.numel() : loss.numel()))
    throw KernelError(fmt::format("label {} does not fit logits {}", shapeText(label.shape), shapeText(logits.shape)));
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      double top = -INFINITY;
      for (int64_t k = 0; k < v.n; ++k) top = std::max(top, logits.data[v.at(o, k, i)]);
      double total = 0;
      for (int64_t k = 0; k < v.n; ++k) total += std::exp(logits.data[v.at(o, k, i)] - top);
      const double logTotal = std::log(total);
      double l = 0;
      for (int64_t k = 0; k < v.n; ++k) {
        const double logP = logits.data[v.at(o, k, i)] - top - logTotal;
        softmax.data[v.at(o, k, i)] = std::exp(logP);
        if (args.softLabel) l -= label.data[v.at(o, k, i)] * logP;
      }
      const int64_t row = o * v.inner + i;
      if (!args.softLabel) {
        const int64_t cls = labelClass(label[row], args, v.n);
        l = cls < 0 ? 0.0 : -(logits.data[v.at(o, cls, i)] - top - logTotal);
      }
      loss[row] = l;
    }
  }
  c.setOut(0, std::move(softmax));
  if (c.numResults() > 1) c.setOut(1, std::move(loss));
}

// input_grad = (softmax - onehot(label)) * loss_grad, 0 where ignored.
void crossEntropyWithSoftmaxGrad(KernelContext& c) {
  const Tensor& softmax = c.in(1);
  const CrossEntropyArgs args = crossEntropyArgs(c, softmax);
  const AxisView v(softmax.shape, args.axis);
  const Tensor& label = sized(c, 0, args.softLabel ? softmax.numel() : v.outer * v.inner, "label");
  const Tensor& lossGrad = sized(c, 2, v.outer * v.inner, "loss_grad");
  Tensor dx = softmax;
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      const int64_t row = o * v.inner + i;
      const double g = lossGrad[row];
      const int64_t cls = args.softLabel ? 0 : labelClass(label[row], args, v.n);
      for (int64_t k = 0; k < v.n; ++k) {
        const size_t at = v.at(o, k, i);
        const double target = args.softLabel ? label.data[at] : (k == cls ? 1.0 : 0.0);
        dx.data[at] = !args.softLabel && cls < 0 ? 0.0 : (softmax.data[at] - target) * g;
      }
    }
  }
  c.setOut(0, std::move(dx));
}

// ---- embedding ----

// A rank holding rows [start, start + rows) of the table looks up only the ids
// in its range and writes zeros for the rest: Paddle's c_embedding, what a
// row-sharded (vocab-parallel) embedding runs, whose partial result reduces by
// SUM. Serially the table is whole and an id out of range is an error.
struct TableRows {
  int64_t start;
  int64_t rows;
  int64_t width;
};

TableRows tableRows(const KernelContext& c, const Tensor& weight) {
  if (weight.rank() != 2) throw KernelError("embedding needs a 2-D weight");
  return {c.site().operandOffset(1).at(0), weight.shape[0], weight.shape[1]};
}

int64_t localRow(const KernelContext& c, double id, const TableRows& t, int64_t paddingIdx) {
  const int64_t row = toInteger(id, "id");
  if (row == paddingIdx) return -1;
  if (row >= t.start && row < t.start + t.rows) return row - t.start;
  if (c.site().serial()) throw KernelError(fmt::format("id {} is out of range for {} rows", row, t.rows));
  return -1;
}

void embedding(KernelContext& c) {
  const Tensor& ids = c.in(0);
  const Tensor& weight = c.in(1);
  const TableRows t = tableRows(c, weight);
  const int64_t paddingIdx = c.attrs().integer("padding_idx", -1);
  Shape shape = ids.shape;
  shape.push_back(t.width);
  Tensor out = Tensor::filled(shape, 0.0, weight.dtype);
  for (int64_t i = 0; i < ids.numel(); ++i) {
    const int64_t row = localRow(c, ids[i], t, paddingIdx);
    for (int64_t j = 0; row >= 0 && j < t.width; ++j) out[i * t.width + j] = weight[row * t.width + j];
  }
  c.setOut(0, std::move(out));
}

void embeddingGrad(KernelContext& c) {
  const Tensor& ids = c.in(0);
  const Tensor& weight = c.in(1);
  const TableRows t = tableRows(c, weight);
  const Tensor& g = sized(c, 2, ids.numel() * t.width, "out_grad");
  const int64_t paddingIdx = c.attrs().integer("padding_idx", -1);
  Tensor dw = Tensor::filled(weight.shape, 0.0, weight.dtype);
  for (int64_t i = 0; i < ids.numel(); ++i) {
    const int64_t row = localRow(c, ids[i], t, paddingIdx);
    for (int64_t j = 0; row >= 0 && j < t.width; ++j) dw[row * t.width + j] += g[i * t.width + j];
  }
  c.setOut(0, std::move(dw));
}

// ---- dropout ----

// Dropout drops nothing here (every mask element is 1) so the serial program
// and every rank agree by construction; a test-mode downscale_in_infer still
// scales by 1 - p. Its layout is checked like any op's.
void dropout(KernelContext& c) {
  const Tensor& x = c.in(0);
  const double p = c.attrs().number("p", 0.0);
  const bool downscale = c.attrs().boolean("is_test", false) &&
                         c.attrs().string("mode", "upscale_in_train") == "downscale_in_infer";
  Tensor out = x;
  if (downscale)
    for (double& v : out.data) v *= 1.0 - p;
  c.setOut(0, std::move(out));
  if (c.numResults() > 1) c.setOut(1, Tensor::filled(x.shape, 1.0, c.resultDType(1)));
}

// dropout_grad(mask, out_grad, p, is_test, mode): the mask is all ones.
void dropoutGrad(KernelContext& c) { c.setOut(0, c.in(1)); }

constexpr KernelRow kRows[] = {
    {"pd_op.layer_norm", layerNorm},
    {"pd_op.layer_norm_grad", layerNormGrad},
    {"pd_op.rms_norm", rmsNorm},
    {"pd_op.rms_norm_grad", rmsNormGrad},
    {"pd_op.cross_entropy_with_softmax", crossEntropyWithSoftmax},
    {"pd_op.cross_entropy_with_softmax_grad", crossEntropyWithSoftmaxGrad},
    {"pd_op.embedding", embedding},
    {"pd_op.embedding_grad", embeddingGrad},
    {"pd_op.dropout", dropout},
    {"pd_op.dropout_grad", dropoutGrad},
};

}  // namespace

std::span<const KernelRow> nnKernels() { return kRows; }

}  // namespace reshardctl
