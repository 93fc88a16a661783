#include <doctest/doctest.h>

#include "partition_pass.h"
#include "printer.h"
#include "testing.h"

namespace reshardctl {

namespace {
PartitionResult runPass(testing::Parsed& parsed) {
  return applyPartitionPass(*parsed.program, *parsed.diagnostics);
}
}  // namespace

TEST_CASE("the seed program gets its two reshards, and the graph stays consistent") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_before.ir"));
  REQUIRE(parsed.program);
  PartitionResult result = runPass(parsed);
  CHECK(result.ok);
  REQUIRE(result.inserted.size() == 2);
  for (Operation* reshard : result.inserted) {
    CHECK(reshard->name() == "dist_op.reshard");
    CHECK(reshard->result(0)->useCount() == 1);
    CHECK(reshard->next()->operandValue(reshard->result(0)->firstUse->owner() == reshard->next() ? 0 : 1) != nullptr);
  }
  CHECK(checkGraph(*parsed.program).empty());
  CHECK(printProgramToString(*parsed.program) == testing::readRepoFile("samples/seed_mlp_after.ir"));
}

TEST_CASE("a second run changes nothing") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_after.ir"));
  REQUIRE(parsed.program);
  CHECK(runPass(parsed).inserted.empty());
}

TEST_CASE("one reshard per mismatching use, none for null, dense or missing entries") {
  const char* text =
      "{\n"
      "    (%0) = \"a.src\" () {op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[-1]}}} : () -> pd_dist.tensor<8xf32, mesh_shape:[2],dims_mappings:[-1]>\n"
      "    (%1) = \"a.dense\" () {} : () -> builtin.tensor<8xf32>\n"
      "    () = \"a.use\" (%0, %0, %1, <<NULL VALUE>>, %0) {op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},"
      "operand(0):{dims_maping:[0]},operand(1):{dims_maping:[0]},operand(2):{dims_maping:[0]},operand(3):{null}}} : "
      "(pd_dist.tensor<8xf32, mesh_shape:[2],dims_mappings:[-1]>, pd_dist.tensor<8xf32, mesh_shape:[2],dims_mappings:[-1]>, "
      "builtin.tensor<8xf32>, <<NULL TYPE>>, pd_dist.tensor<8xf32, mesh_shape:[2],dims_mappings:[-1]>) -> \n"
      "}\n";
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  PartitionResult result = runPass(parsed);
  // operands 0 and 1 mismatch; 2 is dense, 3 is null, 4 has no entry.
  CHECK(result.inserted.size() == 2);
  Operation* user = parsed.program->body()->back();
  CHECK(user->operandValue(0) == result.inserted[0]->result(0));
  CHECK(user->operandValue(1) == result.inserted[1]->result(0));
  CHECK(user->operandValue(4) == parsed.program->body()->front()->result(0));
  CHECK(user->prev() == result.inserted[1]);
  CHECK(checkGraph(*parsed.program).empty());
}

TEST_CASE("a reshard between meshes runs on the merged mesh") {
  const char* text =
      "{\n"
      "    (%0) = \"a.src\" () {op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[0]}}} : () -> pd_dist.tensor<8xf32, mesh_shape:[2],dims_mappings:[0]>\n"
      "    () = \"a.use\" (%0) {op_dist_attr:{mesh:{shape:[2],process_ids:[2,3]},operand(0):{dims_maping:[0]}}} : (pd_dist.tensor<8xf32, mesh_shape:[2],dims_mappings:[0]>) -> \n"
      "}\n";
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  PartitionResult result = runPass(parsed);
  REQUIRE(result.inserted.size() == 1);
  CHECK(result.inserted[0]->attributes() ==
        "{op_dist_attr:{mesh:{shape:[4],process_ids:[0,1,2,3]},operand(0):{mesh_shape:[2],dims_maping:[0]},"
        "result(0):{mesh_shape:[2],dims_maping:[0]}}}");
  CHECK(result.inserted[0]->result(0)->dist->mesh.processIds == std::vector<int64_t>{2, 3});
}

}  // namespace reshardctl
