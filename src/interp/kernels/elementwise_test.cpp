#include <cmath>

#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"

namespace reshardctl {

using testing::checkValues;
using testing::KernelRun;
using testing::tensor;

namespace {
const std::string kVec3 = "builtin.tensor<3xf32>";
const Tensor kX = tensor({3}, {-1.0, 0.0, 2.0});

Tensor unary(const std::string& name, const Tensor& x = kX, const std::string& attrs = "{}") {
  return KernelRun(name, attrs, {kVec3}).first({x});
}
}  // namespace

TEST_CASE("unary activations on hand-computed values") {
  checkValues(unary("pd_op.relu"), {3}, {0, 0, 2});
  checkValues(unary("pd_op.square"), {3}, {1, 0, 4});
  checkValues(unary("pd_op.abs"), {3}, {1, 0, 2});
  checkValues(unary("pd_op.sigmoid"), {3}, {1 / (1 + std::exp(1.0)), 0.5, 1 / (1 + std::exp(-2.0))});
  checkValues(unary("pd_op.tanh"), {3}, {std::tanh(-1.0), 0, std::tanh(2.0)});
  checkValues(unary("pd_op.exp"), {3}, {std::exp(-1.0), 1, std::exp(2.0)});
  // gelu(1) = 0.5 (1 + erf(1/sqrt 2)) = 0.841345; the tanh form gives 0.841192.
  checkValues(unary("pd_op.gelu", tensor({1}, {1.0})), {1}, {0.8413447460685429});
  checkValues(unary("pd_op.gelu", tensor({1}, {1.0}), "{approximate:true}"), {1}, {0.8411919906082768});
  checkValues(unary("pd_op.silu", tensor({1}, {1.0})), {1}, {0.7310585786300049});
  const Tensor positive = tensor({3}, {1, 4, 0.25});
  checkValues(unary("pd_op.sqrt", positive), {3}, {1, 2, 0.5});
  checkValues(unary("pd_op.rsqrt", positive), {3}, {1, 0.5, 2});
  checkValues(unary("pd_op.log", positive), {3}, {0, std::log(4.0), std::log(0.25)});
  checkValues(unary("pd_op.pow", positive, "{y:(Float)3}"), {3}, {1, 64, 0.015625});
}

TEST_CASE("scale applies its bias before or after") {
  checkValues(unary("pd_op.scale", kX, "{bias:(Float)1,bias_after_scale:true,scale:(Float)2}"), {3}, {-1, 1, 5});
  checkValues(unary("pd_op.scale", kX, "{bias:(Float)1,bias_after_scale:false,scale:(Float)2}"), {3}, {0, 2, 6});
  // The scale as an operand (a pd_op.full), as newer dumps print it.
  checkValues(KernelRun("pd_op.scale", "{bias:(Float)0,bias_after_scale:true}", {kVec3}).first({kX, tensor({1}, {3})}),
              {3}, {-3, 0, 6});
}

TEST_CASE("cast truncates toward zero for integers and keeps floats") {
  const Tensor x = tensor({4}, {-1.7, 1.7, 0.0, 2.5});
  checkValues(KernelRun("pd_op.cast", "{dtype:(pd_op.DataType)int64}", {"builtin.tensor<4xi64>"}).first({x}), {4},
              {-1, 1, 0, 2});
  checkValues(KernelRun("pd_op.cast", "{dtype:(pd_op.DataType)bool}", {"builtin.tensor<4xb>"}).first({x}), {4},
              {1, 1, 0, 1});
  checkValues(KernelRun("pd_op.cast", "{dtype:(pd_op.DataType)float64}", {"builtin.tensor<4xf64>"}).first({x}), {4},
              {-1.7, 1.7, 0.0, 2.5});
}

TEST_CASE("binary ops broadcast as numpy") {
  const Tensor a = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = tensor({3}, {10, 20, 30});
  const std::string t23 = "builtin.tensor<2x3xf32>";
  checkValues(KernelRun("pd_op.add", "{}", {t23}).first({a, b}), {2, 3}, {11, 22, 33, 14, 25, 36});
  checkValues(KernelRun("pd_op.subtract", "{}", {t23}).first({a, b}), {2, 3}, {-9, -18, -27, -6, -15, -24});
  checkValues(KernelRun("pd_op.multiply", "{}", {t23}).first({a, tensor({2, 1}, {2, 3})}), {2, 3},
              {2, 4, 6, 12, 15, 18});
  checkValues(KernelRun("pd_op.divide", "{}", {t23}).first({a, tensor({}, {2})}), {2, 3}, {0.5, 1, 1.5, 2, 2.5, 3});
  checkValues(KernelRun("pd_op.maximum", "{}", {t23}).first({a, tensor({}, {3.5})}), {2, 3}, {3.5, 3.5, 3.5, 4, 5, 6});
  checkValues(KernelRun("pd_op.less_than", "{}", {"builtin.tensor<2x3xb>"}).first({a, tensor({}, {3})}), {2, 3},
              {1, 1, 0, 0, 0, 0});
  CHECK_THROWS_AS(KernelRun("pd_op.add", "{}", {t23}).first({a, tensor({2}, {1, 2})}), KernelError);
}

TEST_CASE("integer division truncates toward zero") {
  checkValues(KernelRun("pd_op.divide", "{}", {"builtin.tensor<2xi32>"})
                  .first({tensor({2}, {7, -7}, DType::I32), tensor({2}, {2, 2}, DType::I32)}),
              {2}, {3, -3});
}

TEST_CASE("where picks from x or y, broadcasting all three") {
  const Tensor cond = tensor({2, 1}, {1, 0});
  checkValues(KernelRun("pd_op.where", "{}", {"builtin.tensor<2x2xf32>"})
                  .first({cond, tensor({2}, {1, 2}), tensor({2, 2}, {5, 6, 7, 8})}),
              {2, 2}, {1, 2, 7, 8});
}

TEST_CASE("unary grads use the forward value Paddle passes them") {
  const Tensor g = tensor({3}, {2, 2, 2});
  // relu_grad(out, out_grad), tanh_grad(out, out_grad), sigmoid_grad(out, out_grad)
  checkValues(KernelRun("pd_op.relu_grad", "{}", {kVec3}).first({tensor({3}, {0, 0, 3}), g}), {3}, {0, 0, 2});
  checkValues(KernelRun("pd_op.tanh_grad", "{}", {kVec3}).first({tensor({3}, {0.5, 0, 1}), g}), {3}, {1.5, 2, 0});
  checkValues(KernelRun("pd_op.sigmoid_grad", "{}", {kVec3}).first({tensor({3}, {0.5, 0, 1}), g}), {3}, {0.5, 0, 0});
  // square_grad(x, out_grad) = 2 x g; sqrt_grad(out, out_grad) = g / (2 out)
  checkValues(KernelRun("pd_op.square_grad", "{}", {kVec3}).first({kX, g}), {3}, {-4, 0, 8});
  checkValues(KernelRun("pd_op.sqrt_grad", "{}", {kVec3}).first({tensor({3}, {1, 2, 4}), g}), {3}, {1, 0.5, 0.25});
  // silu_grad(x, out, out_grad) at 0: sigmoid(0) (1 + 0) = 0.5
  checkValues(KernelRun("pd_op.silu_grad", "{}", {kVec3}).first({kX, kX, g}), {3},
              {2 * (1 / (1 + std::exp(1.0))) * (1 - 1 * (1 - 1 / (1 + std::exp(1.0)))), 1,
               2 * (1 / (1 + std::exp(-2.0))) * (1 + 2 * (1 - 1 / (1 + std::exp(-2.0))))});
  checkValues(KernelRun("pd_op.pow_grad", "{y:(Float)3}", {kVec3}).first({kX, g}), {3}, {6, 0, 24});
}

TEST_CASE("binary grads sum over the dims an operand was broadcast along") {
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor y = tensor({3}, {1, 2, 4});
  const Tensor g = tensor({2, 3}, {1, 1, 1, 1, 1, 1});
  const std::vector<std::string> types = {"builtin.tensor<2x3xf32>", kVec3};
  auto add = KernelRun("pd_op.add_grad", "{axis:(Int32)-1}", types).run({x, y, g});
  checkValues(*add[0], {2, 3}, {1, 1, 1, 1, 1, 1});
  checkValues(*add[1], {3}, {2, 2, 2});
  auto sub = KernelRun("pd_op.subtract_grad", "{axis:(Int32)-1}", types).run({x, y, g});
  checkValues(*sub[1], {3}, {-2, -2, -2});
  auto mul = KernelRun("pd_op.multiply_grad", "{axis:(Int32)-1}", types).run({x, y, g});
  checkValues(*mul[0], {2, 3}, {1, 2, 4, 1, 2, 4});
  checkValues(*mul[1], {3}, {5, 7, 9});
  // divide_grad(x, y, out, out_grad): dx = g / y, dy = -g out / y
  const Tensor out = tensor({2, 3}, {1, 1, 0.75, 4, 2.5, 1.5});
  auto div = KernelRun("pd_op.divide_grad", "{axis:(Int32)-1}", types).run({x, y, out, g});
  checkValues(*div[0], {2, 3}, {1, 0.5, 0.25, 1, 0.5, 0.25});
  checkValues(*div[1], {3}, {-5, -1.75, -0.5625});
  // maximum_grad: ties go to y (Paddle's MaxGradDy is g * (x <= y))
  auto max = KernelRun("pd_op.maximum_grad", "{}", {kVec3, kVec3})
                 .run({tensor({3}, {1, 5, 2}), tensor({3}, {3, 4, 2}), tensor({3}, {1, 1, 1})});
  checkValues(*max[0], {3}, {0, 1, 0});
  checkValues(*max[1], {3}, {1, 0, 1});
}

TEST_CASE("an in-place variant runs its op's kernel") {
  const bool sameKernel = findKernel("pd_op.relu_") == findKernel("pd_op.relu");
  CHECK(sameKernel);
  const bool hasSgd = findKernel("pd_op.sgd_") != nullptr;
  CHECK(hasSgd);
  const bool hasNone = findKernel("pd_op.no_such_op") == nullptr;
  CHECK(hasNone);
}

}  // namespace reshardctl
