#include <doctest/doctest.h>

#include "passes/mix_to_dist.h"
#include "passes/partition_pass.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

TEST_CASE("mix2dist: PR #62718's shard_tensor ops give their layouts to the data and parameter ops") {
  testing::Parsed mixed = testing::parse(testing::readRepoFile("tests/golden/real/dist_pr62718_shard_tensor.ir"));
  REQUIRE_MESSAGE(mixed.program, mixed.errors());
  MixToDistResult result = applyMixToDistPass(*mixed.program, *mixed.diagnostics);
  CHECK(result.ok);
  CHECK(result.removed == 3);
  CHECK(mixed.errors().empty());
  // What MixToDistPass leaves (mix_to_dist_pass.cc): three ops, each with the
  // shard_tensor's op_dist_attr and type, the dictionary sorted.
  CHECK(printProgramToString(*mixed.program) ==
        "{\n"
        "    (%0) = \"builtin.parameter\" () {is_persistable:[true],op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},"
        "result(0):{dims_maping:[-1,0]}},parameter_name:\"w1\",stop_gradient:[false]} : () -> pd_dist.tensor<8x8xf32, "
        "mesh_shape:[2],dims_mappings:[-1,0]>\n"
        "    (%1) = \"builtin.parameter\" () {is_persistable:[true],op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},"
        "result(0):{dims_maping:[0,-1]}},parameter_name:\"w0\",stop_gradient:[false]} : () -> pd_dist.tensor<8x8xf32, "
        "mesh_shape:[2],dims_mappings:[0,-1]>\n"
        "    (%2) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"input\",op_dist_attr:{mesh:{shape:[2],"
        "process_ids:[0,1]},result(0):{dims_maping:[-1,-1,-1]}},place:(pd_op.Place)Place(undefined:0),"
        "shape:(pd_op.IntArray)[2,4,8],stop_gradient:[true]} : () -> pd_dist.tensor<2x4x8xf32, mesh_shape:[2],"
        "dims_mappings:[-1,-1,-1]>\n"
        "}\n");
  CHECK(applyPartitionPass(*mixed.program, *mixed.diagnostics).ok);
}

TEST_CASE("mix2dist: a shard_tensor of another op's value, or of a value used twice, is refused as Paddle throws") {
  const std::string dist = "{op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[0]}}}";
  const std::string shard = " : (builtin.tensor<4xf32>) -> pd_dist.tensor<4xf32, mesh_shape:[2],dims_mappings:[0]>\n";
  testing::Parsed other = testing::parse("{\n    (%0) = \"pd_op.full\" () {} : () -> builtin.tensor<4xf32>\n"
                                         "    (%1) = \"dist_op.shard_tensor\" (%0) " + dist + shard + "}\n");
  REQUIRE_MESSAGE(other.program, other.errors());
  CHECK_FALSE(applyMixToDistPass(*other.program, *other.diagnostics).ok);
  CHECK(other.errors().find("test.ir:3:5: error: op [pd_op.full] is not Supported by shard_tensor op in pir mode") ==
        0);
  testing::Parsed twice = testing::parse("{\n    (%0) = \"pd_op.data\" () {name:\"x\"} : () -> builtin.tensor<4xf32>\n"
                                         "    (%1) = \"pd_op.relu\" (%0) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
                                         "    (%2) = \"dist_op.shard_tensor\" (%0) " + dist + shard + "}\n");
  REQUIRE_MESSAGE(twice.program, twice.errors());
  CHECK_FALSE(applyMixToDistPass(*twice.program, *twice.diagnostics).ok);
  CHECK(twice.errors().find("the use_count of tensor to be sharded is [2]") != std::string::npos);
}

}  // namespace reshardctl
