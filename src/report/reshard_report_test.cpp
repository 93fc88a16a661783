#include "report/reshard_report.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "passes/partition_pass.h"
#include "report/plan_output.h"
#include "syntax/parser.h"
#include "syntax/printer.h"

using namespace reshardctl;

namespace {

std::string repoFile(const std::string& relative) {
  std::ifstream in(std::string(RESHARDCTL_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A parsed program with the source it points into.
struct Loaded {
  std::unique_ptr<SourceFile> source;
  std::unique_ptr<Program> program;
};

Loaded load(const std::string& text) {
  Loaded loaded;
  loaded.source = std::make_unique<SourceFile>(SourceFile::fromString("test.ir", text));
  DiagnosticEngine diagnostics(loaded.source.get());
  loaded.program = parseProgram(*loaded.source, diagnostics).program;
  REQUIRE_MESSAGE(loaded.program, diagnostics.render());
  return loaded;
}

// A bf16 value on mesh [2](0,1) moved by an explicit reshard to mesh [2](2,3),
// printed the way generation A prints it: the entries name only mesh shapes.
std::string crossMeshProgram(bool withConsumer) {
  const std::string type = "pd_dist.tensor<8x4xbf16, mesh_shape:[2],dims_mappings:[-1,-1]>";
  const std::string split = "pd_dist.tensor<8x4xbf16, mesh_shape:[2],dims_mappings:[0,-1]>";
  std::string text =
      "{\n"
      "    (%0) = \"pd_op.data\" () {op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[-1,-1]}}} : () -> " +
      type + "\n" +
      "    (%1) = \"dist_op.reshard\" (%0) {op_dist_attr:{mesh:{shape:[4],process_ids:[0,1,2,3]},operand(0):{mesh_shape:[2],"
      "dims_maping:[-1,-1]},result(0):{mesh_shape:[2],dims_maping:[0,-1]}}} : (" +
      type + ") -> " + split + "\n";
  if (withConsumer)
    text += "    (%2) = \"pd_op.relu\" (%1) {op_dist_attr:{mesh:{shape:[2],process_ids:[3,2]},operand(0):{dims_maping:[0,-1]},"
            "result(0):{dims_maping:[0,-1]}}} : (" +
            split + ") -> " + split + "\n";
  return text + "}\n";
}

const CostModel kCosts;

}  // namespace

TEST_CASE("reshard report: the seed's reshards, named and placed as in the file") {
  const Loaded loaded = load(repoFile("samples/seed_mlp_after.ir"));
  const auto reports = planProgramReshards(*loaded.program, kCosts, sourceLines(*loaded.source));
  REQUIRE(reports.size() == 2);
  CHECK(reports[0].line == 11);
  CHECK(reports[0].result == "%9");
  CHECK(reports[0].input == "%8");
  CHECK(reports[0].request.shape == std::vector<int64_t>{4, 8});
  CHECK(reports[0].request.dtype == DType::F32);
  REQUIRE(reports[0].plan);
  REQUIRE(reports[0].plan->steps.size() == 1);
  CHECK(reports[0].plan->steps[0].kind == StepKind::AllReduce);
  CHECK(reports[1].line == 26);
  CHECK(reports[1].result == "%26");
}

TEST_CASE("reshard report: reshards a pass inserted get their lines in the printed program") {
  Loaded before = load(repoFile("samples/seed_mlp_before.ir"));
  DiagnosticEngine diagnostics(before.source.get());
  const PartitionResult pass = applyPartitionPass(*before.program, diagnostics);
  const auto inserted = planReshardOps(*before.program, pass.inserted, kCosts,
                                       printedLines(*before.program));
  const Loaded after = load(repoFile("samples/seed_mlp_after.ir"));
  const auto expected = planProgramReshards(*after.program, kCosts, sourceLines(*after.source));
  REQUIRE(inserted.size() == expected.size());
  for (size_t i = 0; i < inserted.size(); ++i) {
    CHECK(inserted[i].line == expected[i].line);
    CHECK(inserted[i].result == expected[i].result);
  }
}

TEST_CASE("reshard report: generation-A ids of the destination mesh come from the op that uses it") {
  const Loaded loaded = load(crossMeshProgram(true));
  const auto reports = planProgramReshards(*loaded.program, kCosts, sourceLines(*loaded.source));
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].request.src.mesh.processIds == std::vector<int64_t>{0, 1});
  CHECK(reports[0].request.dst.mesh.processIds == std::vector<int64_t>{3, 2});
  REQUIRE(reports[0].plan);
  CHECK(reports[0].plan->crossMesh());
}

TEST_CASE("reshard report: without a user, the merged mesh less the source's ids") {
  const Loaded loaded = load(crossMeshProgram(false));
  const auto reports = planProgramReshards(*loaded.program, kCosts, sourceLines(*loaded.source));
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].request.dst.mesh.processIds == std::vector<int64_t>{2, 3});
  REQUIRE(reports[0].plan);
  const Step& move = reports[0].plan->steps.back();
  CHECK(move.kind == StepKind::SendRecv);
  CHECK(move.groups == std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}});
}

TEST_CASE("plan output: JSON carries the fields tools read") {
  const Loaded loaded = load(repoFile("samples/seed_mlp_after.ir"));
  const auto reports = planProgramReshards(*loaded.program, kCosts, sourceLines(*loaded.source));
  const auto json = planJson(reports, kCosts);
  const auto& first = json["reshards"][0];
  CHECK(first["line"] == 11);
  CHECK(first["result"] == "%9");
  CHECK(first["input"] == "%8");
  CHECK(first["src"]["placements"][0] == "P(SUM)");
  CHECK(first["dst"]["dims_mapping"] == nlohmann::json::array({-1, -1}));
  const auto& step = first["steps"][0];
  CHECK(step["kind"] == "all_reduce");
  CHECK(step["mesh_dim"] == 0);
  CHECK(step["reduce"] == "SUM");
  CHECK(step["groups"] == nlohmann::json::parse("[[0,1]]"));
  CHECK(step["bytes_per_rank"] == 128);
  CHECK(json["total"]["reshards"] == 2);
  CHECK(nlohmann::json::parse(planJsonText(reports, kCosts)) == nlohmann::json::parse(json.dump()));
}

TEST_CASE("plan output: the table lists each step and the total") {
  const Loaded loaded = load(repoFile("samples/seed_mlp_after.ir"));
  const auto reports = planProgramReshards(*loaded.program, kCosts, sourceLines(*loaded.source));
  const std::string table = formatPlanTable(reports, kCosts);
  CHECK(table.find("line 11: %9 = dist_op.reshard(%8)  4x8xf32") != std::string::npos);
  CHECK(table.find("all_reduce") != std::string::npos);
  CHECK(table.find("total: " + planTotalText(reports)) != std::string::npos);
  CHECK(planTotalText(reports).rfind("2 reshards, 2 steps", 0) == 0);
}
