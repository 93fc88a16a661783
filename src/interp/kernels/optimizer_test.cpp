#include <cmath>

#include <doctest/doctest.h>

#include "interp/kernels/kernel_testing.h"

namespace reshardctl {

using testing::checkValues;
using testing::KernelRun;
using testing::none;
using testing::tensor;

TEST_CASE("sgd_ steps against the grad") {
  auto out = KernelRun("pd_op.sgd_", "{multi_precision:false}", {"builtin.tensor<2xf32>", "<<NULL TYPE>>"})
                 .run({tensor({2}, {1, 2}), tensor({}, {0.1}), tensor({2}, {2, -1}), none()});
  checkValues(*out[0], {2}, {0.8, 2.1});
  CHECK_FALSE(out[1].has_value());
}

TEST_CASE("momentum_ keeps a velocity, plain and Nesterov") {
  const std::vector<std::string> types = {"builtin.tensor<1xf32>", "builtin.tensor<1xf32>", "<<NULL TYPE>>"};
  auto plain = KernelRun("pd_op.momentum_", "{mu:(Float)0.9,use_nesterov:false}", types)
                   .run({tensor({1}, {1}), tensor({1}, {1}), tensor({1}, {0.5}), tensor({1}, {0.1}), none()});
  checkValues(*plain[1], {1}, {1.45});
  checkValues(*plain[0], {1}, {1 - 0.145});
  auto nesterov = KernelRun("pd_op.momentum_", "{mu:(Float)0.9,use_nesterov:true}", types)
                      .run({tensor({1}, {1}), tensor({1}, {1}), tensor({1}, {0.5}), tensor({1}, {0.1}), none()});
  checkValues(*nesterov[0], {1}, {1 - 0.1 * (1 + 0.9 * 1.45)});
}

TEST_CASE("adam_ and adamw_: the first step moves each element by about lr") {
  const std::vector<std::string> types = {"builtin.tensor<2xf32>", "builtin.tensor<2xf32>", "builtin.tensor<2xf32>",
                                          "builtin.tensor<1xf32>", "builtin.tensor<1xf32>", "<<NULL TYPE>>"};
  const std::vector<Tensor> inputs = {tensor({2}, {1, 1}),    tensor({2}, {2, -3}),    tensor({1}, {0.01}),
                                      tensor({2}, {0, 0}),    tensor({2}, {0, 0}),     tensor({1}, {0.9}),
                                      tensor({1}, {0.999}),   none(),                  none()};
  const std::string attrs = "{beta1:(Float)0.9,beta2:(Float)0.999,epsilon:(Float)0}";
  auto adam = KernelRun("pd_op.adam_", attrs, types).run(inputs);
  // m1 = 0.1 g, m2 = 0.001 g^2; lr_t = lr sqrt(0.001) / 0.1; step = lr_t m1 / sqrt(m2) = lr sign(g)
  checkValues(*adam[0], {2}, {0.99, 1.01});
  checkValues(*adam[1], {2}, {0.2, -0.3});
  checkValues(*adam[2], {2}, {0.004, 0.009});
  checkValues(*adam[3], {1}, {0.81});
  checkValues(*adam[4], {1}, {0.998001});
  auto adamw = KernelRun("pd_op.adamw_", "{beta1:(Float)0.9,beta2:(Float)0.999,coeff:(Float)0.5,epsilon:(Float)0,"
                                         "lr_ratio:(Float)1,with_decay:true}",
                         types)
                   .run(inputs);
  checkValues(*adamw[0], {2}, {1 - 0.005 - 0.01, 1 - 0.005 + 0.01});
  // skip_update holds everything still
  std::vector<Tensor> skipped = inputs;
  skipped[8] = tensor({1}, {1}, DType::Bool);
  checkValues(*KernelRun("pd_op.adam_", attrs, types).run(skipped)[0], {2}, {1, 1});
}

}  // namespace reshardctl
