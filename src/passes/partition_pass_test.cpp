#include <doctest/doctest.h>
#include <fmt/format.h>

#include "passes/partition_pass.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

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

namespace {
// Generation C text on mesh [0,1] (or [0,1,2,3] as 2x2) for the cases below.
std::string typeC(const char* dims, const char* mapping, const char* mesh = "mesh_shape:[2],process_ids:[0,1]") {
  return fmt::format("pd_dist.tensor<{}xf32, {},dims_mappings:{}>", dims, mesh, mapping);
}
}  // namespace

TEST_CASE("generation C reshards copy op_role and pass stop_gradient on") {
  std::string r = typeC("8", "[-1]"), s0 = typeC("8", "[0]");
  std::string text = fmt::format(
      "{{\n"
      "    (%0) = \"a.src\" () {{op_dist_attr:{{mesh:{{shape:[2],process_ids:[0,1]}},result(0):{{mesh_shape:[2],process_ids:[0,1],dims_mappings:[-1]}}}},stop_gradient:[true]}} : () -> {0}\n"
      "    () = \"a.use\" (%0) {{op_dist_attr:{{mesh:{{shape:[2],process_ids:[0,1]}},operand(0):{{mesh_shape:[2],process_ids:[0,1],dims_mappings:[0]}}}},op_role:(Int32)1}} : ({0}) -> \n"
      "}}\n", r);
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  PartitionResult result = runPass(parsed);
  REQUIRE(result.inserted.size() == 1);
  std::string_view attributes = result.inserted[0]->attributes();
  CHECK(attributes.ends_with("}},op_role:(Int32)1,stop_gradient:[true]}"));
  CHECK(result.inserted[0]->result(0)->type->text == s0);
}

TEST_CASE("generation D tensor lists: a new combine with the consumer's op_role, the old one erased") {
  std::string s0 = typeC("8", "[0]"), r = typeC("8", "[-1]");
  const char* mesh = "mesh_shape:[2],process_ids:[0,1]";
  std::string text = fmt::format(
      "{{\n"
      "    (%0) = \"a.src\" () {{op_dist_attr:{{mesh:{{shape:[2],process_ids:[0,1]}},result(0):{{{2},dims_mappings:[0]}},chunk_id:-1}},stop_gradient:[false]}} : () -> {0}\n"
      "    (%1) = \"builtin.combine\" (%0, %0) {{stop_gradient:[false]}} : ({0}, {0}) -> vec[{0},{0}]\n"
      "    () = \"a.use\" (%1) {{op_dist_attr:{{mesh:{{shape:[2],process_ids:[0,1]}},operand(0):{{[{2},dims_mappings:[0],{2},dims_mappings:[-1]]}},chunk_id:2}},op_role:(Int32)0}} : (vec[{0},{0}]) -> \n"
      "}}\n", s0, r, mesh);
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  CHECK(parsed.program->generation() == DistGeneration::D);
  PartitionResult result = runPass(parsed);
  REQUIRE(result.inserted.size() == 1);
  REQUIRE(result.combines.size() == 1);
  CHECK(result.erased == 1);
  Operation* combine = result.combines[0];
  CHECK(combine->attributes() == "{op_role:(Int32)0,stop_gradient:[false]}");
  CHECK(combine->result(0)->type->text == fmt::format("vec[{},{}]", s0, r));
  CHECK(combine->operandValue(0) == parsed.program->body()->front()->result(0));
  CHECK(result.inserted[0]->attributes().find(",chunk_id:-1}") != std::string_view::npos);
  CHECK(checkGraph(*parsed.program).empty());
}

TEST_CASE("--fold does not fold across a reshard between meshes of different ndim") {
  const char* flat = "mesh_shape:[4],process_ids:[0,1,2,3]";
  const char* grid = "mesh_shape:[2,2],process_ids:[0,1,2,3]";
  std::string g = typeC("8", "[-1]", grid), f = typeC("8", "[-1]", flat), f0 = typeC("8", "[0]", flat);
  std::string text = fmt::format(
      "{{\n"
      "    (%0) = \"a.src\" () {{op_dist_attr:{{mesh:{{shape:[2,2],process_ids:[0,1,2,3]}},result(0):{{{3},dims_mappings:[-1]}}}}}} : () -> {0}\n"
      "    (%1) = \"dist_op.reshard\" (%0) {{op_dist_attr:{{mesh:{{shape:[4],process_ids:[0,1,2,3]}},operand(0):{{{3},dims_mappings:[-1]}},result(0):{{{4},dims_mappings:[-1]}}}}}} : ({0}) -> {1}\n"
      "    () = \"a.use\" (%1) {{op_dist_attr:{{mesh:{{shape:[4],process_ids:[0,1,2,3]}},operand(0):{{{4},dims_mappings:[0]}}}}}} : ({1}) -> \n"
      "}}\n", g, f, f0, grid, flat);
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  PartitionOptions options;
  options.fold = true;
  PartitionResult result = applyPartitionPass(*parsed.program, *parsed.diagnostics, options);
  REQUIRE(result.inserted.size() == 1);
  CHECK(result.erased == 0);
  CHECK(result.inserted[0]->operandValue(0) == parsed.program->body()->front()->next()->result(0));
}

}  // namespace reshardctl
