// Elementwise ops: unary activations, numpy-broadcasting binary arithmetic and
// comparisons, and their grads. Argument orders follow Paddle's
// paddle/phi/ops/yaml/ops.yaml and backward.yaml (e.g. relu_grad(out, out_grad),
// silu_grad(x, out, out_grad), divide_grad(x, y, out, out_grad)).
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

template <typename F>
Tensor mapped(const Tensor& x, F f) {
  Tensor out = x;
  for (double& v : out.data) v = f(v);
  return out;
}

template <typename F>
void unary(KernelContext& c, F f) {
  c.setOut(0, mapped(c.in(0), f));
}

// out[i] = f(a[i], b[i]) under numpy broadcasting.
template <typename F>
Tensor zipped(const Tensor& a, const Tensor& b, F f) {
  if (a.shape == b.shape) {
    Tensor out = a;
    for (size_t i = 0; i < out.data.size(); ++i) out.data[i] = f(a.data[i], b.data[i]);
    return out;
  }
  const Shape shape = broadcastShapes(a.shape, b.shape);
  const std::vector<int64_t> ia = broadcastOffsets(a.shape, shape);
  const std::vector<int64_t> ib = broadcastOffsets(b.shape, shape);
  Tensor out = Tensor::filled(shape, 0.0, a.dtype);
  for (size_t i = 0; i < out.data.size(); ++i) out.data[i] = f(a[ia[i]], b[ib[i]]);
  return out;
}

template <typename F>
void binary(KernelContext& c, F f) {
  c.setOut(0, zipped(c.in(0), c.in(1), f));
}

// A grad kernel `g(a, b)` of two same-shaped operands (a forward value and
// the out_grad), e.g. relu_grad(out, out_grad).
template <typename F>
void unaryGrad(KernelContext& c, size_t value, size_t grad, F g) {
  c.setOut(0, zipped(c.in(value), c.in(grad), g));
}

double sigmoidOf(double x) { return 1.0 / (1.0 + std::exp(-x)); }

constexpr double kGeluTanhScale = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kGeluCubic = 0.044715;

double gelu(double x, bool approximate) {
  if (approximate) return 0.5 * x * (1.0 + std::tanh(kGeluTanhScale * (x + kGeluCubic * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
}

double geluDerivative(double x, bool approximate) {
  if (approximate) {
    const double inner = kGeluTanhScale * (x + kGeluCubic * x * x * x);
    const double t = std::tanh(inner);
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kGeluTanhScale * (1.0 + 3.0 * kGeluCubic * x * x);
  }
  const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
  return 0.5 * (1.0 + std::erf(x / std::numbers::sqrt2)) + x * pdf;
}

bool isInteger(DType t) { return !isFloating(t) && !isComplex(t) && t != DType::Bool; }

// ---- unary ----

void relu(KernelContext& c) { unary(c, [](double x) { return x > 0 ? x : 0.0; }); }
void geluKernel(KernelContext& c) {
  const bool approximate = c.attrs().boolean("approximate", false);
  unary(c, [=](double x) { return gelu(x, approximate); });
}
void silu(KernelContext& c) { unary(c, [](double x) { return x * sigmoidOf(x); }); }
void tanhKernel(KernelContext& c) { unary(c, [](double x) { return std::tanh(x); }); }
void sigmoid(KernelContext& c) { unary(c, sigmoidOf); }
void expKernel(KernelContext& c) { unary(c, [](double x) { return std::exp(x); }); }
void logKernel(KernelContext& c) { unary(c, [](double x) { return std::log(x); }); }
void sqrtKernel(KernelContext& c) { unary(c, [](double x) { return std::sqrt(x); }); }
void rsqrt(KernelContext& c) { unary(c, [](double x) { return 1.0 / std::sqrt(x); }); }
void square(KernelContext& c) { unary(c, [](double x) { return x * x; }); }
void absKernel(KernelContext& c) { unary(c, [](double x) { return std::fabs(x); }); }
void sinKernel(KernelContext& c) { unary(c, [](double x) { return std::sin(x); }); }
void cosKernel(KernelContext& c) { unary(c, [](double x) { return std::cos(x); }); }
void reciprocal(KernelContext& c) { unary(c, [](double x) { return 1.0 / x; }); }
void logicalNot(KernelContext& c) { unary(c, [](double x) { return x == 0.0 ? 1.0 : 0.0; }); }
// pow(x, Scalar y): y is an attribute, or an operand in newer dumps.
void pow(KernelContext& c) {
  const double y = c.scalar(1, "y", 1.0);
  unary(c, [=](double x) { return std::pow(x, y); });
}
// increment(x, float value = 1.0)
void increment(KernelContext& c) {
  const double value = c.attrs().number("value", 1.0);
  unary(c, [=](double x) { return x + value; });
}
// scale(x, Scalar scale, Scalar bias, bool bias_after_scale); scale may be an operand.
void scale(KernelContext& c) {
  const double s = c.scalar(1, "scale", 1.0);
  const double bias = c.attrs().number("bias", 0.0);
  const bool after = c.attrs().boolean("bias_after_scale", true);
  unary(c, [=](double x) { return after ? x * s + bias : (x + bias) * s; });
}
// cast(x, DataType dtype): integers truncate toward zero, bool is `x != 0`;
// floating targets keep the double value (the interpreter computes in double).
void cast(KernelContext& c) {
  const DType to = c.resultDType(0);
  unary(c, [=](double x) {
    if (to == DType::Bool) return x != 0.0 ? 1.0 : 0.0;
    return isInteger(to) ? std::trunc(x) : x;
  });
}

// ---- binary (numpy broadcasting) ----

void add(KernelContext& c) { binary(c, [](double a, double b) { return a + b; }); }
void subtract(KernelContext& c) { binary(c, [](double a, double b) { return a - b; }); }
void multiply(KernelContext& c) { binary(c, [](double a, double b) { return a * b; }); }
void divide(KernelContext& c) {
  if (!isInteger(c.resultDType(0))) return binary(c, [](double a, double b) { return a / b; });
  binary(c, [](double a, double b) {
    if (b == 0.0) throw KernelError("integer division by zero");
    return std::trunc(a / b);  // C++ integer division, as Paddle's DivideFunctor
  });
}
void maximum(KernelContext& c) { binary(c, [](double a, double b) { return a > b ? a : b; }); }
void minimum(KernelContext& c) { binary(c, [](double a, double b) { return a < b ? a : b; }); }
void elementwisePow(KernelContext& c) { binary(c, [](double a, double b) { return std::pow(a, b); }); }
void equal(KernelContext& c) { binary(c, [](double a, double b) { return a == b ? 1.0 : 0.0; }); }
void notEqual(KernelContext& c) { binary(c, [](double a, double b) { return a != b ? 1.0 : 0.0; }); }
void lessThan(KernelContext& c) { binary(c, [](double a, double b) { return a < b ? 1.0 : 0.0; }); }
void lessEqual(KernelContext& c) { binary(c, [](double a, double b) { return a <= b ? 1.0 : 0.0; }); }
void greaterThan(KernelContext& c) { binary(c, [](double a, double b) { return a > b ? 1.0 : 0.0; }); }
void greaterEqual(KernelContext& c) { binary(c, [](double a, double b) { return a >= b ? 1.0 : 0.0; }); }
void logicalAnd(KernelContext& c) {
  binary(c, [](double a, double b) { return a != 0.0 && b != 0.0 ? 1.0 : 0.0; });
}
void logicalOr(KernelContext& c) {
  binary(c, [](double a, double b) { return a != 0.0 || b != 0.0 ? 1.0 : 0.0; });
}
void logicalXor(KernelContext& c) {
  binary(c, [](double a, double b) { return (a != 0.0) != (b != 0.0) ? 1.0 : 0.0; });
}
// where(condition, x, y), all three broadcasting together.
void where(KernelContext& c) {
  const Tensor& cond = c.in(0);
  const Tensor& x = c.in(1);
  const Tensor& y = c.in(2);
  const Shape shape = broadcastShapes(broadcastShapes(cond.shape, x.shape), y.shape);
  const std::vector<int64_t> ic = broadcastOffsets(cond.shape, shape);
  const std::vector<int64_t> ix = broadcastOffsets(x.shape, shape);
  const std::vector<int64_t> iy = broadcastOffsets(y.shape, shape);
  Tensor out = Tensor::filled(shape, 0.0, x.dtype);
  for (size_t i = 0; i < out.data.size(); ++i) out.data[i] = cond[ic[i]] != 0.0 ? x[ix[i]] : y[iy[i]];
  c.setOut(0, std::move(out));
}

// ---- unary grads ----

void reluGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double out, double g) { return out > 0 ? g : 0.0; }); }
void geluGrad(KernelContext& c) {
  const bool approximate = c.attrs().boolean("approximate", false);
  unaryGrad(c, 0, 1, [=](double x, double g) { return g * geluDerivative(x, approximate); });
}
// silu_grad(x, out, out_grad)
void siluGrad(KernelContext& c) {
  unaryGrad(c, 0, 2, [](double x, double g) {
    const double s = sigmoidOf(x);
    return g * s * (1.0 + x * (1.0 - s));
  });
}
void tanhGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double out, double g) { return g * (1.0 - out * out); }); }
void sigmoidGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double out, double g) { return g * out * (1.0 - out); }); }
void expGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double out, double g) { return g * out; }); }
void logGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double x, double g) { return g / x; }); }
void sqrtGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double out, double g) { return 0.5 * g / out; }); }
void rsqrtGrad(KernelContext& c) {
  unaryGrad(c, 0, 1, [](double out, double g) { return -0.5 * g * out * out * out; });
}
void squareGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double x, double g) { return 2.0 * x * g; }); }
void sinGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double x, double g) { return g * std::cos(x); }); }
void cosGrad(KernelContext& c) { unaryGrad(c, 0, 1, [](double x, double g) { return -g * std::sin(x); }); }
// pow_grad(x, out_grad, Scalar y)
void powGrad(KernelContext& c) {
  const double y = c.scalar(2, "y", 1.0);
  unaryGrad(c, 0, 1, [=](double x, double g) { return g * y * std::pow(x, y - 1.0); });
}

// ---- binary grads: each operand's grad summed back to its own shape ----

void setBinaryGrads(KernelContext& c, const Tensor& dx, const Tensor& dy) {
  c.setOut(0, reduceToShape(dx, c.in(0).shape));
  if (c.numResults() > 1) c.setOut(1, reduceToShape(dy, c.in(1).shape));
}

// add_grad(x, y, out_grad)
void addGrad(KernelContext& c) { setBinaryGrads(c, c.in(2), c.in(2)); }
void subtractGrad(KernelContext& c) { setBinaryGrads(c, c.in(2), mapped(c.in(2), [](double g) { return -g; })); }
// multiply_grad(x, y, out_grad)
void multiplyGrad(KernelContext& c) {
  const Tensor& g = c.in(2);
  setBinaryGrads(c, zipped(g, c.in(1), [](double a, double b) { return a * b; }),
                 zipped(g, c.in(0), [](double a, double b) { return a * b; }));
}
// divide_grad(x, y, out, out_grad)
void divideGrad(KernelContext& c) {
  const Tensor& g = c.in(3);
  const Tensor dx = zipped(g, c.in(1), [](double a, double b) { return a / b; });
  const Tensor outOverY = zipped(c.in(2), c.in(1), [](double o, double y) { return o / y; });
  setBinaryGrads(c, dx, zipped(g, outOverY, [](double a, double b) { return -a * b; }));
}
// maximum_grad(x, y, out_grad): Paddle's MaxGradDx is g * (x > y), MaxGradDy g * (x <= y).
void maximumGrad(KernelContext& c) {
  const Tensor& g = c.in(2);
  const Tensor xWins = zipped(c.in(0), c.in(1), [](double x, double y) { return x > y ? 1.0 : 0.0; });
  setBinaryGrads(c, zipped(g, xWins, [](double a, double w) { return a * w; }),
                 zipped(g, xWins, [](double a, double w) { return a * (1.0 - w); }));
}
// where_grad(condition, x, y, out_grad)
void whereGrad(KernelContext& c) {
  const Tensor& g = c.in(3);
  const Tensor dx = zipped(g, c.in(0), [](double a, double cond) { return cond != 0.0 ? a : 0.0; });
  const Tensor dy = zipped(g, c.in(0), [](double a, double cond) { return cond != 0.0 ? 0.0 : a; });
  c.setOut(0, reduceToShape(dx, c.in(1).shape));
  if (c.numResults() > 1) c.setOut(1, reduceToShape(dy, c.in(2).shape));
}

constexpr KernelRow kRows[] = {
    {"pd_op.relu", relu},
    {"pd_op.gelu", geluKernel},
    {"pd_op.silu", silu},
    {"pd_op.swish", silu},
    {"pd_op.tanh", tanhKernel},
    {"pd_op.sigmoid", sigmoid},
    {"pd_op.exp", expKernel},
    {"pd_op.log", logKernel},
    {"pd_op.sqrt", sqrtKernel},
    {"pd_op.rsqrt", rsqrt},
    {"pd_op.square", square},
    {"pd_op.abs", absKernel},
    {"pd_op.sin", sinKernel},
    {"pd_op.cos", cosKernel},
    {"pd_op.reciprocal", reciprocal},
    {"pd_op.logical_not", logicalNot},
    {"pd_op.pow", pow},
    {"pd_op.increment", increment},
    {"pd_op.scale", scale},
    {"pd_op.cast", cast},
    {"pd_op.add", add},
    {"pd_op.subtract", subtract},
    {"pd_op.multiply", multiply},
    {"pd_op.divide", divide},
    {"pd_op.maximum", maximum},
    {"pd_op.minimum", minimum},
    {"pd_op.elementwise_pow", elementwisePow},
    {"pd_op.equal", equal},
    {"pd_op.not_equal", notEqual},
    {"pd_op.less_than", lessThan},
    {"pd_op.less_equal", lessEqual},
    {"pd_op.greater_than", greaterThan},
    {"pd_op.greater_equal", greaterEqual},
    {"pd_op.logical_and", logicalAnd},
    {"pd_op.logical_or", logicalOr},
    {"pd_op.logical_xor", logicalXor},
    {"pd_op.where", where},
    {"pd_op.relu_grad", reluGrad},
    {"pd_op.gelu_grad", geluGrad},
    {"pd_op.silu_grad", siluGrad},
    {"pd_op.tanh_grad", tanhGrad},
    {"pd_op.sigmoid_grad", sigmoidGrad},
    {"pd_op.exp_grad", expGrad},
    {"pd_op.log_grad", logGrad},
    {"pd_op.sqrt_grad", sqrtGrad},
    {"pd_op.rsqrt_grad", rsqrtGrad},
    {"pd_op.square_grad", squareGrad},
    {"pd_op.sin_grad", sinGrad},
    {"pd_op.cos_grad", cosGrad},
    {"pd_op.pow_grad", powGrad},
    {"pd_op.add_grad", addGrad},
    {"pd_op.subtract_grad", subtractGrad},
    {"pd_op.multiply_grad", multiplyGrad},
    {"pd_op.divide_grad", divideGrad},
    {"pd_op.maximum_grad", maximumGrad},
    {"pd_op.where_grad", whereGrad},
};

}  // namespace

std::span<const KernelRow> elementwiseKernels() { return kRows; }

}  // namespace reshardctl
