// Optimizer updates, elementwise on (local pieces of) parameters. Operand
// orders from Paddle's ops.yaml:
//   sgd_(param, learning_rate, grad, master_param, multi_precision)
//     -> param_out, master_param_out
//   momentum_(param, grad, velocity, learning_rate, master_param, mu, use_nesterov,
//     regularization_method, regularization_coeff, multi_precision, rescale_grad)
//     -> param_out, velocity_out, master_param_out
//   adam_(param, grad, learning_rate, moment1, moment2, [moment2_max,] beta1_pow, beta2_pow,
//     master_param, skip_update, beta1, beta2, epsilon, ...)
//     -> param_out, moment1_out, moment2_out, [moment2_max_out,] beta1_pow_out, beta2_pow_out,
//        master_param_out   (moment2_max arrived with amsgrad in 2025: 7 results instead of 6)
//   adamw_(... as adam_ ..., lr_ratio, coeff, with_decay, ...)
// The update rules are phi's (AdamFunctor, AdamwDenseKernel, MomentumFunctor).
#include <cmath>

#include <fmt/format.h>

#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

double firstElement(const Tensor& t, std::string_view what) {
  if (t.data.empty()) throw KernelError(fmt::format("{} holds no element", what));
  return t.data.front();
}

void requireSameShape(const Tensor& a, const Tensor& b, std::string_view what) {
  if (a.shape != b.shape)
    throw KernelError(fmt::format("{} is {} but the parameter is {}", what, shapeText(b.shape), shapeText(a.shape)));
}

// The values the update starts from: the fp32 master copy when the op keeps one.
const Tensor& updateBase(const KernelContext& c, size_t masterOperand) {
  const Tensor* master = c.optionalIn(masterOperand);
  return master && c.attrs().boolean("multi_precision", false) ? *master : c.in(0);
}

void setParam(KernelContext& c, const Tensor& updated, size_t masterOperand, size_t masterResult) {
  c.setOut(0, updated);
  if (c.hasInput(masterOperand) && masterResult < c.numResults()) c.setOut(masterResult, updated);
}

void sgd(KernelContext& c) {
  const double lr = firstElement(c.in(1), "learning_rate");
  const Tensor& grad = c.in(2);
  Tensor p = updateBase(c, 3);
  requireSameShape(p, grad, "the grad");
  for (size_t i = 0; i < p.data.size(); ++i) p.data[i] -= lr * grad.data[i];
  setParam(c, p, 3, 1);
}

void momentum(KernelContext& c) {
  const Tensor& grad = c.in(1);
  Tensor velocity = c.in(2);
  const double lr = firstElement(c.in(3), "learning_rate");
  Tensor p = updateBase(c, 4);
  requireSameShape(p, grad, "the grad");
  requireSameShape(p, velocity, "the velocity");
  const double mu = c.attrs().number("mu", 0.9);
  const bool nesterov = c.attrs().boolean("use_nesterov", false);
  const double rescale = c.attrs().number("rescale_grad", 1.0);
  const bool l2 = c.attrs().string("regularization_method", "") == "l2_decay";
  const double coeff = c.attrs().number("regularization_coeff", 0.0);
  for (size_t i = 0; i < p.data.size(); ++i) {
    const double g = grad.data[i] * rescale + (l2 ? coeff * p.data[i] : 0.0);
    velocity.data[i] = mu * velocity.data[i] + g;
    p.data[i] -= lr * (nesterov ? g + mu * velocity.data[i] : velocity.data[i]);
  }
  setParam(c, p, 4, 2);
  c.setOut(1, std::move(velocity));
}

// Operand and result positions of adam_ / adamw_, with or without moment2_max.
struct AdamLayout {
  bool amsgrad;
  size_t beta1Pow, beta2Pow, master, skip;  // operands
  size_t beta1PowOut, beta2PowOut, masterOut;  // results
};

AdamLayout adamLayout(const KernelContext& c) {
  if (c.numResults() >= 7) return {true, 6, 7, 8, 9, 4, 5, 6};
  return {false, 5, 6, 7, 8, 3, 4, 5};
}

void adamUpdate(KernelContext& c, bool decoupledDecay) {
  const AdamLayout at = adamLayout(c);
  const Tensor& grad = c.in(1);
  double lr = firstElement(c.in(2), "learning_rate");
  Tensor m1 = c.in(3);
  Tensor m2 = c.in(4);
  Tensor m2max = at.amsgrad && c.hasInput(5) ? c.in(5) : m2;
  Tensor b1pow = c.in(at.beta1Pow);
  Tensor b2pow = c.in(at.beta2Pow);
  Tensor p = updateBase(c, at.master);
  requireSameShape(p, grad, "the grad");
  requireSameShape(p, m1, "moment1");
  requireSameShape(p, m2, "moment2");
  const bool skip = c.hasInput(at.skip) && firstElement(c.in(at.skip), "skip_update") != 0.0;
  const double beta1 = c.attrs().number("beta1", 0.9);
  const double beta2 = c.attrs().number("beta2", 0.999);
  const double eps = c.attrs().number("epsilon", 1e-8);
  const bool amsgrad = at.amsgrad && c.attrs().boolean("amsgrad", false);
  if (!skip) {
    const double p1 = firstElement(b1pow, "beta1_pow");
    const double p2 = firstElement(b2pow, "beta2_pow");
    if (decoupledDecay) {  // AdamW: p -= lr * lr_ratio * coeff * p, then Adam with lr * lr_ratio
      lr *= c.attrs().number("lr_ratio", 1.0);
      const double decay = c.attrs().boolean("with_decay", false) ? c.attrs().number("coeff", 0.01) : 0.0;
      for (double& v : p.data) v -= lr * decay * v;
    }
    const double stepLr = lr * std::sqrt(1.0 - p2) / (1.0 - p1);
    for (size_t i = 0; i < p.data.size(); ++i) {
      const double g = grad.data[i];
      m1.data[i] = beta1 * m1.data[i] + (1.0 - beta1) * g;
      m2.data[i] = beta2 * m2.data[i] + (1.0 - beta2) * g * g;
      const double second = amsgrad ? (m2max.data[i] = std::max(m2max.data[i], m2.data[i])) : m2.data[i];
      p.data[i] -= stepLr * (m1.data[i] / (std::sqrt(second) + eps * std::sqrt(1.0 - p2)));
    }
    if (!c.attrs().boolean("use_global_beta_pow", false)) {
      for (double& v : b1pow.data) v *= beta1;
      for (double& v : b2pow.data) v *= beta2;
    }
  }
  setParam(c, p, at.master, at.masterOut);
  c.setOut(1, std::move(m1));
  c.setOut(2, std::move(m2));
  if (at.amsgrad) c.setOut(3, std::move(m2max));
  c.setOut(at.beta1PowOut, std::move(b1pow));
  c.setOut(at.beta2PowOut, std::move(b2pow));
}

void adam(KernelContext& c) { adamUpdate(c, false); }
void adamw(KernelContext& c) { adamUpdate(c, true); }

constexpr KernelRow kRows[] = {
    {"pd_op.sgd_", sgd},
    {"pd_op.momentum_", momentum},
    {"pd_op.adam_", adam},
    {"pd_op.adamw_", adamw},
};

}  // namespace

std::span<const KernelRow> optimizerKernels() { return kRows; }

}  // namespace reshardctl
