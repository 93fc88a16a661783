#include "view/dot_view.h"

#include <doctest/doctest.h>

#include "view/reshard_costs.h"
#include "view/view_testing.h"

using namespace reshardctl;
using namespace reshardctl::testing;

namespace {

std::string dotOf(const Viewed& viewed) { return writeDot(*viewed.view, OpSelection::all(viewed.view->ops)); }

// The line that declares node `id`.
std::string nodeLine(const std::string& dot, const std::string& id) {
  const size_t at = dot.find("  " + id + " [");
  REQUIRE_MESSAGE(at != std::string::npos, id);
  return dot.substr(at, dot.find('\n', at) - at);
}

// The subgraph a node is declared in: the name of the innermost open cluster, or "".
std::string clusterOf(const std::string& dot, const std::string& id) {
  const size_t at = dot.find("  " + id + " [");
  std::vector<std::string> open;
  for (size_t line = 0; line < at;) {
    const size_t end = dot.find('\n', line);
    const std::string text = dot.substr(line, end - line);
    if (text.rfind("  subgraph ", 0) == 0) open.push_back(text.substr(11, text.find(' ', 11) - 11));
    if (text == "  }") open.pop_back();
    line = end + 1;
  }
  return open.empty() ? "" : open.back();
}

}  // namespace

TEST_CASE("dot: ops are nodes, values are labelled edges, one cluster per mesh") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  const std::string dot = dotOf(seed);
  CHECK(dot.rfind("digraph reshardctl {\n", 0) == 0);
  CHECK(dot.substr(dot.size() - 2) == "}\n");
  CHECK(occurrences(dot, "{") == occurrences(dot, "}"));
  CHECK(occurrences(dot, "subgraph cluster_") == 1);
  CHECK(occurrences(dot, "label=\"mesh[2](0,1)\"") == 1);
  size_t operands = 0;
  for (const Operation* op : seed.view->ops.ops())
    for (size_t i = 0; i < op->numOperands(); ++i) operands += op->operandValue(i) ? 1 : 0;
  CHECK(occurrences(dot, " -> op") == operands);
  CHECK(dot.find("  op8 -> op9 [label=\"%8\\n4x8xf32 [P(SUM)]\"];") != std::string::npos);
  CHECK(nodeLine(dot, "op6").find("label=\"%6 = pd_op.matmul\"") != std::string::npos);
  CHECK(clusterOf(dot, "op9") == "cluster_top_m0");
}

TEST_CASE("dot: a reshard's colour and width follow its planned cost") {
  const Viewed pipeline = viewFile("tests/golden/views/pipeline_after.ir");
  const std::string dot = dotOf(pipeline);
  // %4 (30.5 us) is the dearest: the reddest, widest border; %1 (2.9 us) is pale and thin.
  const std::string dearest = nodeLine(dot, "op4");
  const std::string cheap = nodeLine(dot, "op1");
  CHECK(dearest.find("fillcolor=\"" + heatColour(1.0) + "\"") != std::string::npos);
  CHECK(dearest.find("penwidth=5.0") != std::string::npos);
  CHECK(dearest.find("\\n30.5 us") != std::string::npos);
  CHECK(cheap.find("penwidth=1.4") != std::string::npos);  // 1 + 4 * 2.9 / 30.5
  CHECK(cheap.find("fillcolor=\"" + heatColour(pipeline.view->reshards.heat(*pipeline.view->reshards.of(
                       pipeline.view->ops.op(1)))) + "\"") != std::string::npos);
}

TEST_CASE("dot: reshards between meshes sit outside the clusters, marked") {
  const std::string dot = dotOf(viewFile("tests/golden/views/pipeline_after.ir"));
  CHECK(occurrences(dot, "subgraph cluster_") == 4);
  for (const char* cross : {"op4", "op6", "op8"}) {
    CAPTURE(cross);
    CHECK(clusterOf(dot, cross).empty());
    CHECK(nodeLine(dot, cross).find("peripheries=2") != std::string::npos);
    CHECK(nodeLine(dot, cross).find("cross-mesh ") != std::string::npos);
  }
  CHECK(nodeLine(dot, "op4").find("cross-mesh mesh[2](0,1) -> mesh[2](2,3)") != std::string::npos);
  CHECK(clusterOf(dot, "op1") == "cluster_top_m0");  // within one mesh
  CHECK(nodeLine(dot, "op1").find("peripheries") == std::string::npos);
}

TEST_CASE("dot: regions are nested clusters") {
  const std::string dot = dotOf(viewFile("tests/golden/pass/if_blocks.expected.ir"));
  CHECK(occurrences(dot, "{") == occurrences(dot, "}"));
  // %5 = pd_op.if is op 5; its then-block holds the inner if (op 8), whose then-block holds op 9.
  CHECK(dot.find("subgraph cluster_op5r0 {") != std::string::npos);
  CHECK(dot.find("subgraph cluster_op5r1 {") != std::string::npos);
  CHECK(dot.find("label=\"%5 = pd_op.if then:\"") != std::string::npos);
  CHECK(clusterOf(dot, "op9") == "cluster_op8r0_m0");
  CHECK(clusterOf(dot, "op8").empty() == false);
  const size_t outer = dot.find("subgraph cluster_op5r0 {");
  const size_t inner = dot.find("subgraph cluster_op8r0 {");
  CHECK(outer < inner);
}

TEST_CASE("dot: a focus cuts the graph with stubs at the edges") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  std::string error;
  const std::optional<OpSelection> around = selectNeighbourhood(*seed.view, "%9", 1, &error);
  REQUIRE(around);
  const std::string dot = writeDot(*seed.view, *around);
  CHECK(occurrences(dot, "  op") == 3 + 3);  // op8, op9, op10; three edges start at an op
  CHECK(dot.find("  v7 [shape=plaintext") != std::string::npos);   // %7 comes from outside
  CHECK(dot.find("  v7 -> op8") != std::string::npos);
  CHECK(dot.find("label=\"3 more uses\"") != std::string::npos);  // %10's users are cut off
  CHECK(dot.find("around %9: 3 of 28 ops") != std::string::npos);
}
