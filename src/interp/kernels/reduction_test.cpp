#include <cmath>

#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"

namespace reshardctl {

using testing::checkValues;
using testing::KernelRun;
using testing::tensor;

namespace {
const Tensor kX = tensor({2, 3}, {1, 5, 3, 4, 2, 6});
}  // namespace

TEST_CASE("sum, mean and max over attribute or operand axes") {
  checkValues(KernelRun("pd_op.sum", "{keepdim:false}", {"builtin.tensor<2xf32>"}).first({kX, tensor({1}, {1})}), {2},
              {9, 12});
  checkValues(KernelRun("pd_op.sum", "{keepdim:true}", {"builtin.tensor<1x3xf32>"}).first({kX, tensor({1}, {0})}),
              {1, 3}, {5, 7, 9});
  // The seed's form: axis:(pd_op.IntArray)[] reduces everything.
  checkValues(KernelRun("pd_op.mean", "{axis:(pd_op.IntArray)[],keepdim:false}", {"builtin.tensor<f32>"}).first({kX}),
              {}, {3.5});
  checkValues(KernelRun("pd_op.max", "{axis:(pd_op.IntArray)[-1],keepdim:false}", {"builtin.tensor<2xf32>"}).first({kX}),
              {2}, {5, 6});
  checkValues(KernelRun("pd_op.min", "{axis:(pd_op.IntArray)[0],keepdim:false}", {"builtin.tensor<3xf32>"}).first({kX}),
              {3}, {1, 2, 3});
  checkValues(KernelRun("pd_op.squared_l2_norm", "{}", {"builtin.tensor<1xf32>"}).first({tensor({2}, {3, 4})}), {1},
              {25});
}

TEST_CASE("reduction grads spread the out_grad back") {
  const std::string t23 = "builtin.tensor<2x3xf32>";
  checkValues(KernelRun("pd_op.mean_grad", "{axis:(pd_op.IntArray)[],keepdim:false,reduce_all:false}", {t23})
                  .first({kX, tensor({}, {6})}),
              {2, 3}, {1, 1, 1, 1, 1, 1});
  checkValues(KernelRun("pd_op.sum_grad", "{axis:(pd_op.IntArray)[1],keepdim:false,reduce_all:false}", {t23})
                  .first({kX, tensor({2}, {1, 2})}),
              {2, 3}, {1, 1, 1, 2, 2, 2});
  // max_grad(x, out, out_grad): every element equal to the max takes the grad.
  checkValues(KernelRun("pd_op.max_grad", "{axis:(pd_op.IntArray)[1],keepdim:false,reduce_all:false}", {t23})
                  .first({tensor({2, 3}, {1, 5, 5, 4, 2, 6}), tensor({2}, {5, 6}), tensor({2}, {1, 2})}),
              {2, 3}, {0, 1, 1, 0, 0, 2});
}

TEST_CASE("softmax and log_softmax along an axis, and their grads") {
  const Tensor logits = tensor({1, 2}, {0, std::log(3.0)});
  const std::string t12 = "builtin.tensor<1x2xf32>";
  checkValues(KernelRun("pd_op.softmax", "{axis:(Int32)-1}", {t12}).first({logits}), {1, 2}, {0.25, 0.75});
  checkValues(KernelRun("pd_op.log_softmax", "{axis:(Int32)-1}", {t12}).first({logits}), {1, 2},
              {std::log(0.25), std::log(0.75)});
  // softmax_grad(out, out_grad) = out (g - sum(g out))
  checkValues(KernelRun("pd_op.softmax_grad", "{axis:(Int32)-1}", {t12})
                  .first({tensor({1, 2}, {0.25, 0.75}), tensor({1, 2}, {1, 0})}),
              {1, 2}, {0.1875, -0.1875});
  // log_softmax_grad(out, out_grad) = g - exp(out) sum(g)
  checkValues(KernelRun("pd_op.log_softmax_grad", "{axis:(Int32)-1}", {t12})
                  .first({tensor({1, 2}, {std::log(0.25), std::log(0.75)}), tensor({1, 2}, {1, 0})}),
              {1, 2}, {0.75, -0.75});
  // Along axis 0 of a column.
  checkValues(KernelRun("pd_op.softmax", "{axis:(Int32)0}", {"builtin.tensor<2x1xf32>"})
                  .first({tensor({2, 1}, {0, std::log(3.0)})}),
              {2, 1}, {0.25, 0.75});
}

}  // namespace reshardctl
