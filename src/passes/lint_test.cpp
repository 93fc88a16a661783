#include <doctest/doctest.h>

#include "passes/lint.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {
struct Linted {
  size_t count = 0;
  std::string text;
};

Linted lint(const std::string& body) {
  testing::Parsed parsed = testing::parse("{\n" + body + "}\n");
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  Linted linted;
  linted.count = lintProgram(*parsed.program, *parsed.diagnostics);
  linted.text = parsed.diagnostics->render();
  return linted;
}

const std::string kMesh = "mesh:{shape:[2],process_ids:[0,1]}";
}  // namespace

TEST_CASE("a clean program has no warnings") {
  testing::Parsed seed = testing::parse(testing::readRepoFile("samples/seed_mlp_before.ir"));
  REQUIRE(seed.program);
  CHECK(lintProgram(*seed.program, *seed.diagnostics) == 0);
}

TEST_CASE("uneven shards are reported with the dim and mesh dim") {
  Linted linted = lint("    (%0) = \"a.src\" () {op_dist_attr:{" + kMesh +
                       ",result(0):{dims_maping:[0]}}} : () -> pd_dist.tensor<7xf32, mesh_shape:[2],dims_mappings:[0]>\n");
  CHECK(linted.count == 1);
  CHECK(linted.text.find("test.ir:2:5: warning: result 0: dim 0 of size 7 is split over mesh dim 0 of size 2") !=
        std::string::npos);
}

TEST_CASE("entries beyond the operand count, dense operands, shape-only meshes") {
  Linted linted = lint(
      "    (%0) = \"a.dense\" () {} : () -> builtin.tensor<8xf32>\n"
      "    (%1) = \"a.use\" (%0) {op_dist_attr:{" + kMesh +
      ",operand(0):{dims_maping:[-1]},operand(1):{dims_maping:[-1]},result(0):{mesh_shape:[4],dims_maping:[-1]}}} : "
      "(builtin.tensor<8xf32>) -> pd_dist.tensor<8xf32, mesh_shape:[4],dims_mappings:[-1]>\n");
  CHECK(linted.text.find("operand(1) has no operand: the op has 1 operand") != std::string::npos);
  CHECK(linted.text.find("operand 0 is a dense tensor (builtin.tensor<8xf32>)") != std::string::npos);
  CHECK(linted.text.find("result(0) names a mesh only by its shape") != std::string::npos);
  CHECK(linted.text.find("result 0 lives on a mesh known only by its shape [4]") != std::string::npos);
  CHECK(linted.count == 4);
}

TEST_CASE("a dense operand the op_dist_attr names no layout for is not reported") {
  // dist_op.shard_tensor as PR #62718 printed it: a dense input, a result entry only.
  Linted linted = lint(
      "    (%0) = \"pd_op.data\" () {name:\"input\"} : () -> builtin.tensor<2x4xf32>\n"
      "    (%1) = \"dist_op.shard_tensor\" (%0) {op_dist_attr:{" + kMesh +
      ",result(0):{dims_maping:[0,-1]}}} : (builtin.tensor<2x4xf32>) -> pd_dist.tensor<2x4xf32, mesh_shape:[2],dims_mappings:[0,-1]>\n"
      "    (%2) = \"a.use\" (%0) {op_dist_attr:{" + kMesh +
      ",operand(0):{null},result(0):{null}}} : (builtin.tensor<2x4xf32>) -> builtin.tensor<2x4xf32>\n");
  CHECK(linted.count == 0);
  CHECK(linted.text.empty());
}

}  // namespace reshardctl
