#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"

namespace reshardctl {

using testing::checkValues;
using testing::KernelRun;
using testing::tensor;

namespace {
// X [2x3], Y [3x2]: X Y = [[4, 5], [10, 11]] by hand.
const Tensor kX = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
const Tensor kY = tensor({3, 2}, {1, 0, 0, 1, 1, 1});
}  // namespace

TEST_CASE("matmul with and without transposes") {
  checkValues(KernelRun("pd_op.matmul", "{transpose_x:false,transpose_y:false}", {"builtin.tensor<2x2xf32>"})
                  .first({kX, kY}),
              {2, 2}, {4, 5, 10, 11});
  // Y^T [2x3] as y with transpose_y.
  const Tensor yt = tensor({2, 3}, {1, 0, 1, 0, 1, 1});
  checkValues(KernelRun("pd_op.matmul", "{transpose_x:false,transpose_y:true}", {"builtin.tensor<2x2xf32>"})
                  .first({kX, yt}),
              {2, 2}, {4, 5, 10, 11});
  // X^T X [3x3] with transpose_x.
  checkValues(KernelRun("pd_op.matmul", "{transpose_x:true,transpose_y:false}", {"builtin.tensor<3x3xf32>"})
                  .first({kX, kX}),
              {3, 3}, {17, 22, 27, 22, 29, 36, 27, 36, 45});
}

TEST_CASE("matmul broadcasts batch dims and squeezes 1-D operands") {
  const Tensor batch = tensor({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  checkValues(KernelRun("pd_op.matmul", "{}", {"builtin.tensor<2x1x2xf32>"}).first({batch, kY}), {2, 1, 2},
              {4, 5, 10, 11});
  checkValues(KernelRun("pd_op.matmul", "{}", {"builtin.tensor<2xf32>"}).first({kX, tensor({3}, {1, 1, 1})}), {2},
              {6, 15});
  checkValues(KernelRun("pd_op.matmul", "{}", {"builtin.tensor<2xf32>"}).first({tensor({3}, {1, 1, 1}), kY}), {2},
              {2, 2});
  CHECK_THROWS_AS(KernelRun("pd_op.matmul", "{}", {"builtin.tensor<2x2xf32>"}).first({kX, kX}), KernelError);
}

TEST_CASE("matmul_grad: dX = G Y^T and dY = X^T G, summed over broadcast batches") {
  const Tensor g = tensor({2, 2}, {1, 0, 0, 1});
  auto grads = KernelRun("pd_op.matmul_grad", "{transpose_x:false,transpose_y:false}",
                         {"builtin.tensor<2x3xf32>", "builtin.tensor<3x2xf32>"})
                   .run({kX, kY, g});
  checkValues(*grads[0], {2, 3}, {1, 0, 1, 0, 1, 1});  // G Y^T = Y^T
  checkValues(*grads[1], {3, 2}, {1, 4, 2, 5, 3, 6});  // X^T G = X^T
  // transpose_y: C = X Y'^T, dY' = G^T X
  const Tensor yt = tensor({2, 3}, {1, 0, 1, 0, 1, 1});
  auto transposed = KernelRun("pd_op.matmul_grad", "{transpose_x:false,transpose_y:true}",
                              {"builtin.tensor<2x3xf32>", "builtin.tensor<2x3xf32>"})
                        .run({kX, yt, g});
  checkValues(*transposed[0], {2, 3}, {1, 0, 1, 0, 1, 1});
  checkValues(*transposed[1], {2, 3}, {1, 2, 3, 4, 5, 6});
  // y shared by a batch of 2: its grad is the sum over the batch.
  const Tensor batch = tensor({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto batched = KernelRun("pd_op.matmul_grad", "{}", {"builtin.tensor<2x1x3xf32>", "builtin.tensor<3x2xf32>"})
                     .run({batch, kY, tensor({2, 1, 2}, {1, 0, 0, 1})});
  checkValues(*batched[1], {3, 2}, {1, 4, 2, 5, 3, 6});
}

}  // namespace reshardctl
