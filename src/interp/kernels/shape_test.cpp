#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"

namespace reshardctl {

using testing::checkValues;
using testing::KernelRun;
using testing::tensor;

namespace {
const Tensor kX = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
}  // namespace

TEST_CASE("reshape takes its result's shape; a rank its local one") {
  checkValues(KernelRun("pd_op.reshape", "{}", {"builtin.tensor<3x2xf32>"}).first({kX, tensor({2}, {3, 2})}), {3, 2},
              {1, 2, 3, 4, 5, 6});
  checkValues(KernelRun("pd_op.reshape", "{}", {"builtin.tensor<-1xf32>"}).first({kX}), {6}, {1, 2, 3, 4, 5, 6});
  // The old form's second result, xshape [0, 2, 3], is an empty tensor.
  auto both = KernelRun("pd_op.reshape", "{}", {"builtin.tensor<6xf32>", "builtin.tensor<0x2x3xf32>"}).run({kX});
  CHECK(both[1]->shape == Shape{0, 2, 3});
  KernelRun rank("pd_op.reshape", "{}", {"builtin.tensor<6xf32>"});
  rank.site.isSerial = false;
  rank.site.localShapes = {{3}};
  checkValues(rank.first({tensor({1, 3}, {1, 2, 3})}), {3}, {1, 2, 3});
  checkValues(KernelRun("pd_op.reshape_grad", "{}", {"builtin.tensor<2x3xf32>"}).first({kX, tensor({6}, {6, 5, 4, 3, 2, 1})}),
              {2, 3}, {6, 5, 4, 3, 2, 1});
}

TEST_CASE("transpose and its grad invert each other") {
  const Tensor t = KernelRun("pd_op.transpose", "{perm:[(Int32)1,(Int32)0]}", {"builtin.tensor<3x2xf32>"}).first({kX});
  checkValues(t, {3, 2}, {1, 4, 2, 5, 3, 6});
  checkValues(KernelRun("pd_op.transpose_grad", "{perm:[(Int32)1,(Int32)0]}", {"builtin.tensor<2x3xf32>"}).first({t}),
              {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor cube = tensor({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  checkValues(KernelRun("pd_op.transpose", "{perm:[(Int32)2,(Int32)0,(Int32)1]}", {"builtin.tensor<3x1x2xf32>"})
                  .first({cube}),
              {3, 1, 2}, {1, 4, 2, 5, 3, 6});
}

TEST_CASE("concat, split, split_with_num and stack along an axis") {
  const Tensor parts = Tensor::list({kX, tensor({2, 1}, {7, 8})});
  const Tensor joined = KernelRun("pd_op.concat", "{}", {"builtin.tensor<2x4xf32>"}).first({parts, tensor({1}, {1})});
  checkValues(joined, {2, 4}, {1, 2, 3, 7, 4, 5, 6, 8});
  const Tensor split =
      KernelRun("pd_op.split", "{}", {"vec[builtin.tensor<2x1xf32>,builtin.tensor<2x3xf32>]"})
          .first({joined, tensor({2}, {1, -1}), tensor({1}, {1})});
  REQUIRE(split.isList);
  checkValues(split.items[0], {2, 1}, {1, 4});
  checkValues(split.items[1], {2, 3}, {2, 3, 7, 5, 6, 8});
  const Tensor halves =
      KernelRun("pd_op.split_with_num", "{num:(Int32)2}", {"vec[builtin.tensor<1x3xf32>,builtin.tensor<1x3xf32>]"})
          .first({kX, tensor({1}, {0})});
  checkValues(halves.items[1], {1, 3}, {4, 5, 6});
  CHECK_THROWS_AS(KernelRun("pd_op.split_with_num", "{num:(Int32)4}", {"vec[]"}).first({kX, tensor({1}, {0})}),
                  KernelError);
  auto grads = KernelRun("pd_op.concat_grad", "{}", {"vec[builtin.tensor<2x3xf32>,builtin.tensor<2x1xf32>]"})
                   .first({parts, joined, tensor({1}, {1})});
  checkValues(grads.items[1], {2, 1}, {7, 8});
  checkValues(KernelRun("pd_op.stack", "{axis:(Int32)0}", {"builtin.tensor<2x2xf32>"})
                  .first({Tensor::list({tensor({2}, {1, 2}), tensor({2}, {3, 4})})}),
              {2, 2}, {1, 2, 3, 4});
}

TEST_CASE("slice clamps its bounds and drops decreased axes") {
  checkValues(KernelRun("pd_op.slice", "{axes:[(Int64)1],decrease_axis:[],infer_flags:[(Int64)1]}",
                        {"builtin.tensor<2x2xf32>"})
                  .first({kX, tensor({1}, {-2}), tensor({1}, {100})}),
              {2, 2}, {2, 3, 5, 6});
  checkValues(KernelRun("pd_op.slice", "{axes:[(Int64)0],decrease_axis:[(Int64)0],ends:[(Int64)2],starts:[(Int64)1]}",
                        {"builtin.tensor<3xf32>"})
                  .first({kX}),
              {3}, {4, 5, 6});
  checkValues(KernelRun("pd_op.slice_grad", "{axes:[(Int64)1],decrease_axis:[]}", {"builtin.tensor<2x3xf32>"})
                  .first({kX, tensor({2, 1}, {9, 8}), tensor({1}, {2}), tensor({1}, {3})}),
              {2, 3}, {0, 0, 9, 0, 0, 8});
}

TEST_CASE("gather, expand, tril/triu and the builtin list ops") {
  checkValues(KernelRun("pd_op.gather", "{}", {"builtin.tensor<2x2xf32>"})
                  .first({kX, tensor({2}, {2, 0}, DType::I64), tensor({1}, {1})}),
              {2, 2}, {3, 1, 6, 4});
  checkValues(KernelRun("pd_op.gather_grad", "{}", {"builtin.tensor<2x3xf32>"})
                  .first({kX, tensor({2}, {2, 2}, DType::I64), tensor({2, 2}, {1, 2, 3, 4}), tensor({1}, {1})}),
              {2, 3}, {0, 0, 3, 0, 0, 7});
  checkValues(KernelRun("pd_op.expand", "{}", {"builtin.tensor<2x3xf32>"}).first({tensor({3}, {1, 2, 3})}), {2, 3},
              {1, 2, 3, 1, 2, 3});
  checkValues(KernelRun("pd_op.expand_grad", "{}", {"builtin.tensor<3xf32>"}).first({tensor({3}, {0, 0, 0}), kX}), {3},
              {5, 7, 9});
  const Tensor ones = Tensor::filled({2, 2}, 1.0, DType::F32);
  checkValues(KernelRun("pd_op.tril", "{diagonal:(Int32)0}", {"builtin.tensor<2x2xf32>"}).first({ones}), {2, 2},
              {1, 0, 1, 1});
  // A rank holding columns 2..3 of a 2x4 matrix: triu by global column.
  KernelRun rank("pd_op.triu", "{diagonal:(Int32)1}", {"builtin.tensor<2x2xf32>"});
  rank.site.isSerial = false;
  rank.site.offsets = {{0, 2}};
  checkValues(rank.first({ones}), {2, 2}, {1, 1, 1, 1});
  KernelRun left("pd_op.triu", "{diagonal:(Int32)1}", {"builtin.tensor<2x2xf32>"});
  checkValues(left.first({ones}), {2, 2}, {0, 1, 0, 0});
  const Tensor list = KernelRun("builtin.combine", "{}", {"vec[builtin.tensor<2x3xf32>,builtin.tensor<2x3xf32>]"})
                          .first({kX, kX});
  CHECK(list.items.size() == 2);
  auto unpacked = KernelRun("builtin.split", "{}", {"builtin.tensor<2x3xf32>", "builtin.tensor<2x3xf32>"}).run({list});
  checkValues(*unpacked[1], {2, 3}, {1, 2, 3, 4, 5, 6});
  checkValues(KernelRun("builtin.slice", "{index:(Int32)1}", {"builtin.tensor<2x3xf32>"}).first({list}), {2, 3},
              {1, 2, 3, 4, 5, 6});
}

}  // namespace reshardctl
