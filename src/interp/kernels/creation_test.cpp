#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"

namespace reshardctl {

using testing::checkValues;
using testing::KernelRun;
using testing::tensor;

TEST_CASE("full and full_like fill the shape their result has here") {
  checkValues(KernelRun("pd_op.full", "{dtype:(pd_op.DataType)float32,shape:(pd_op.IntArray)[2],value:(Float)1.5}",
                        {"builtin.tensor<2xf32>"})
                  .first({}),
              {2}, {1.5, 1.5});
  // Generation E prints values bare.
  checkValues(KernelRun("pd_op.full", "{dtype:float32,shape:[1],value:-2}", {"builtin.tensor<1xf32>"}).first({}), {1},
              {-2});
  KernelRun rank("pd_op.full", "{value:(Float)3}", {"builtin.tensor<8xf32>"});
  rank.site.isSerial = false;
  rank.site.localShapes = {{4}};
  checkValues(rank.first({}), {4}, {3, 3, 3, 3});
  // full_like(x, value): the value is an operand in 2024 dumps.
  checkValues(KernelRun("pd_op.full_like", "{dtype:(pd_op.DataType)float32}", {"builtin.tensor<2x1xf32>"})
                  .first({tensor({2, 1}, {5, 6}), tensor({1}, {1})}),
              {2, 1}, {1, 1});
}

TEST_CASE("full_int_array, assign and shard_tensor") {
  checkValues(KernelRun("pd_op.full_int_array", "{dtype:(pd_op.DataType)int64,value:[(Int64)2,(Int64)-1]}",
                        {"builtin.tensor<2xi64>"})
                  .first({}),
              {2}, {2, -1});
  checkValues(KernelRun("pd_op.assign", "{}", {"builtin.tensor<2xf32>"}).first({tensor({2}, {1, 2})}), {2}, {1, 2});
  checkValues(KernelRun("dist_op.shard_tensor", "{}", {"builtin.tensor<2xf32>"}).first({tensor({2}, {1, 2})}), {2},
              {1, 2});
  CHECK(KernelRun("builtin.shadow_output", "{output_name:\"loss\"}", {}).run({tensor({}, {1})}).empty());
}

TEST_CASE("program inputs come from the site") {
  checkValues(KernelRun("pd_op.data", "{name:\"x\"}", {"builtin.tensor<2xf32>"}).first({}), {2}, {1, 1});
}

}  // namespace reshardctl
