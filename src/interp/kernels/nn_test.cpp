#include <cmath>

#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"

namespace reshardctl {

using testing::checkValues;
using testing::KernelRun;
using testing::none;
using testing::tensor;

TEST_CASE("layer_norm normalises each row past begin_norm_axis") {
  const Tensor x = tensor({1, 3}, {1, 2, 3});  // mean 2, variance 2/3
  auto out = KernelRun("pd_op.layer_norm", "{begin_norm_axis:(Int32)1,epsilon:(Float)0}",
                       {"builtin.tensor<1x3xf32>", "builtin.tensor<1xf32>", "builtin.tensor<1xf32>"})
                 .run({x, tensor({3}, {1, 1, 2}), tensor({3}, {0, 1, 0})});
  const double z = 1 / std::sqrt(2.0 / 3.0);
  checkValues(*out[0], {1, 3}, {-z, 1, 2 * z});
  checkValues(*out[1], {1}, {2});
  checkValues(*out[2], {1}, {2.0 / 3.0});
}

TEST_CASE("layer_norm_grad: a uniform out_grad with unit scale gives no x grad") {
  const Tensor x = tensor({1, 3}, {1, 2, 3});
  auto grads = KernelRun("pd_op.layer_norm_grad", "{begin_norm_axis:(Int32)1,epsilon:(Float)0}",
                         {"builtin.tensor<1x3xf32>", "builtin.tensor<3xf32>", "builtin.tensor<3xf32>"})
                   .run({x, tensor({3}, {1, 1, 1}), tensor({3}, {0, 0, 0}), tensor({1}, {2}), tensor({1}, {2.0 / 3.0}),
                         tensor({1, 3}, {1, 1, 1})});
  checkValues(*grads[0], {1, 3}, {0, 0, 0}, 1e-12);
  const double z = 1 / std::sqrt(2.0 / 3.0);
  checkValues(*grads[1], {3}, {-z, 0, z});  // sum of g * xhat
  checkValues(*grads[2], {3}, {1, 1, 1});   // sum of g
}

TEST_CASE("rms_norm divides by the root mean square and adds the residual") {
  // [3, 4]: mean square 12.5
  auto out = KernelRun("pd_op.rms_norm", "{begin_norm_axis:(Int32)1,epsilon:(Float)0,quant_scale:(Float)-1}",
                       {"builtin.tensor<1x2xf32>", "builtin.tensor<1x2xf32>", "builtin.tensor<1xf32>"})
                 .run({tensor({1, 2}, {2, 3}), none(), tensor({1, 2}, {1, 1}), tensor({2}, {1, 2}), none()});
  const double inv = 1 / std::sqrt(12.5);
  checkValues(*out[0], {1, 2}, {3 * inv, 8 * inv});
  checkValues(*out[1], {1, 2}, {3, 4});
  checkValues(*out[2], {1}, {inv});
  // rms_norm_grad(x, bias, residual, norm_weight, norm_bias, inv_var, out_grad): weight grad = sum(g * xhat)
  auto grads = KernelRun("pd_op.rms_norm_grad", "{begin_norm_axis:(Int32)1,epsilon:(Float)0}",
                         {"builtin.tensor<1x2xf32>", "builtin.tensor<2xf32>"})
                   .run({tensor({1, 2}, {3, 4}), none(), none(), tensor({2}, {1, 1}), none(), tensor({1}, {inv}),
                         tensor({1, 2}, {1, 0})});
  checkValues(*grads[1], {2}, {3 * inv, 0});
  // dx = inv (g w - x inv mean(g w xhat)) = inv (g - x inv (3 inv)/2)
  checkValues(*grads[0], {1, 2}, {inv * (1 - 3 * inv * 1.5 * inv), inv * (0 - 4 * inv * 1.5 * inv)});
}

TEST_CASE("cross_entropy_with_softmax on a hard label, and its grad") {
  const Tensor logits = tensor({1, 2}, {0, std::log(3.0)});
  const std::string attrs =
      "{axis:(Int32)-1,ignore_index:(Int32)-100,numeric_stable_mode:true,soft_label:false,use_softmax:true}";
  auto out = KernelRun("pd_op.cross_entropy_with_softmax", attrs, {"builtin.tensor<1x2xf32>", "builtin.tensor<1x1xf32>"})
                 .run({logits, tensor({1, 1}, {1}, DType::I64)});
  checkValues(*out[0], {1, 2}, {0.25, 0.75});
  checkValues(*out[1], {1, 1}, {-std::log(0.75)});
  checkValues(KernelRun("pd_op.cross_entropy_with_softmax_grad", attrs, {"builtin.tensor<1x2xf32>"})
                  .first({tensor({1, 1}, {1}, DType::I64), *out[0], tensor({1, 1}, {2})}),
              {1, 2}, {0.5, -0.5});
  // ignore_index gives no loss and no grad
  auto ignored = KernelRun("pd_op.cross_entropy_with_softmax", "{ignore_index:(Int32)1}",
                           {"builtin.tensor<1x2xf32>", "builtin.tensor<1x1xf32>"})
                     .run({logits, tensor({1, 1}, {1}, DType::I64)});
  checkValues(*ignored[1], {1, 1}, {0});
  CHECK_THROWS_AS(KernelRun("pd_op.cross_entropy_with_softmax", attrs, {"builtin.tensor<1x2xf32>", "builtin.tensor<1x1xf32>"})
                      .run({logits, tensor({1, 1}, {5}, DType::I64)}),
                  KernelError);
}

TEST_CASE("embedding looks rows up; a rank holding some rows zeroes the others") {
  const Tensor weight = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor ids = tensor({2}, {2, 0}, DType::I64);
  checkValues(KernelRun("pd_op.embedding", "{padding_idx:(Int64)-1,sparse:false}", {"builtin.tensor<2x2xf32>"})
                  .first({ids, weight}),
              {2, 2}, {5, 6, 1, 2});
  // A rank holding rows 2.. of a row-sharded table: c_embedding.
  KernelRun rank("pd_op.embedding", "{padding_idx:(Int64)-1}", {"builtin.tensor<2x2xf32>"});
  rank.site.isSerial = false;
  rank.site.offsets = {{0}, {2, 0}};
  checkValues(rank.first({ids, tensor({1, 2}, {5, 6})}), {2, 2}, {5, 6, 0, 0});
  checkValues(KernelRun("pd_op.embedding", "{padding_idx:(Int64)0}", {"builtin.tensor<2x2xf32>"}).first({ids, weight}),
              {2, 2}, {5, 6, 0, 0});
  CHECK_THROWS_AS(KernelRun("pd_op.embedding", "{}", {"builtin.tensor<1x2xf32>"})
                      .first({tensor({1}, {3}, DType::I64), weight}),
                  KernelError);
  // embedding_grad(x, weight, out_grad): rows accumulate
  checkValues(KernelRun("pd_op.embedding_grad", "{padding_idx:(Int64)-1}", {"builtin.tensor<3x2xf32>"})
                  .first({tensor({3}, {2, 0, 2}, DType::I64), weight, tensor({3, 2}, {1, 1, 2, 2, 3, 3})}),
              {3, 2}, {2, 2, 0, 0, 4, 4});
}

TEST_CASE("dropout drops nothing; downscale_in_infer scales at test time") {
  const Tensor x = tensor({2}, {1, 2});
  auto train = KernelRun("pd_op.dropout", "{is_test:false,mode:\"upscale_in_train\",p:(Float)0.5}",
                         {"builtin.tensor<2xf32>", "builtin.tensor<2xu8>"})
                   .run({x, testing::none()});
  checkValues(*train[0], {2}, {1, 2});
  checkValues(*train[1], {2}, {1, 1});
  checkValues(KernelRun("pd_op.dropout", "{is_test:true,mode:\"downscale_in_infer\",p:(Float)0.25}",
                        {"builtin.tensor<2xf32>", "builtin.tensor<2xu8>"})
                  .first({x, testing::none()}),
              {2}, {0.75, 1.5});
  checkValues(KernelRun("pd_op.dropout_grad", "{}", {"builtin.tensor<2xf32>"}).first({tensor({2}, {1, 1}), x}), {2},
              {1, 2});
}

}  // namespace reshardctl
