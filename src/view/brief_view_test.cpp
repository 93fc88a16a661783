#include "view/brief_view.h"

#include <doctest/doctest.h>

#include <sstream>

#include "syntax/printer.h"
#include "view/op_selection.h"
#include "view/view_testing.h"

using namespace reshardctl;
using namespace reshardctl::testing;

namespace {

std::string brief(const Viewed& viewed, const std::vector<std::string>& attributes = {}) {
  return writeBrief(*viewed.view, OpSelection::all(viewed.view->ops), attributes);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

bool hasLine(const std::string& text, const std::string& line) {
  for (const std::string& candidate : lines(text))
    if (candidate == line) return true;
  return false;
}

std::string focused(const Viewed& viewed, const std::string& value, int depth) {
  std::string error;
  std::optional<OpSelection> selection = selectNeighbourhood(*viewed.view, value, depth, &error);
  REQUIRE_MESSAGE(selection, error);
  return writeBrief(*viewed.view, *selection, {});
}

}  // namespace

TEST_CASE("brief: the seed in placement notation, with plan's cost on each reshard") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  const std::string text = brief(seed);
  CHECK(hasLine(text, "%6 = pd_op.matmul %5, %2  -> 4x16xf32 [S(1)]"));
  CHECK(hasLine(text, "%9 = dist_op.reshard %8  4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 7.8 us"));
  CHECK(hasLine(text, "builtin.shadow_output %13"));
  CHECK(lines(text).size() == seed.view->ops.size());  // one line per op, no region here
  // The point of the view: at least 3x shorter than the dump it summarises.
  const std::string dump = readRepoFile("samples/seed_mlp_after.ir");
  CHECK(text.size() * 3 <= dump.size());
  CHECK(brief(viewFile("samples/seed_mlp_before.ir")).size() * 3 <= readRepoFile("samples/seed_mlp_before.ir").size());
}

TEST_CASE("brief: the same listing from every generation of the seed") {
  const std::string generationA = brief(viewFile("samples/seed_mlp_after.ir"));
  for (const char* generation : {"c", "d", "e"}) {
    CAPTURE(generation);
    CHECK(brief(viewFile(std::string("tests/golden/pass/seed_gen_") + generation + ".expected.ir")) == generationA);
  }
}

TEST_CASE("brief: value names are the ones print gives (hand-named values keep their names)") {
  const Viewed renamed = viewFile("tests/golden/diff/seed_after_renumbered.ir");
  const std::vector<std::string> printed = lines(printProgramToString(*renamed.parsed.program));
  const std::vector<std::string> listed = lines(brief(renamed));
  REQUIRE(printed.size() == listed.size() + 2);  // the dump's braces
  for (size_t i = 0; i < listed.size(); ++i) {
    // "    (%9) = ..." against "%9 = ...": the results, then the operands.
    const std::string& dump = printed[i + 1];
    const size_t close = dump.find(") = ");
    CAPTURE(dump);
    const std::string results = dump.substr(5, close - 5);
    if (!results.empty()) CHECK(listed[i].rfind(results + " = ", 0) == 0);
  }
  CHECK(hasLine(brief(renamed), "%v26 = dist_op.reshard %v19  4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 7.8 us"));
}

TEST_CASE("brief: regions nest by indentation under then/else/body headers") {
  const std::string text = brief(viewFile("tests/golden/pass/if_blocks.expected.ir"));
  CHECK(hasLine(text, "%5 = pd_op.if %2  -> 4x8xf32 [R]"));
  CHECK(hasLine(text, "  then:"));
  CHECK(hasLine(text, "    %6 = dist_op.reshard %4  4x8xf32  mesh[2](0,1): [S(1)] -> [R]   est 7.2 us"));
  CHECK(hasLine(text, "        %9 = dist_op.reshard %4  4x8xf32  mesh[2](0,1): [S(1)] -> [S(0)]   est 7.2 us"));
  CHECK(hasLine(text, "  else:"));
  // Generation A types name the mesh by shape only; it is still one mesh.
  CHECK(text.find(" on mesh") == std::string::npos);

  const std::string loops = brief(viewFile("tests/golden/roundtrip/all_forms.ir"));
  CHECK(hasLine(loops, "arguments: %kwarg_x 4xi64, %kwarg_lr i64"));
  CHECK(hasLine(loops, "  body(%arg_0, %arg_1):"));
  CHECK(hasLine(loops, "    %15 = pd_op.less_than %arg_0, %kwarg_lr  -> b"));
}

TEST_CASE("brief: several meshes: each op names its own, a reshard both ends") {
  const Viewed viewed = viewFile("tests/golden/pass/cross_mesh.expected.ir");
  CHECK(viewed.view->meshes.size() == 3);
  const std::string text = brief(viewed);
  CHECK(hasLine(text, "%5 = pd_op.matmul %4, %2  -> 4x8xf32 [S(1)]  on mesh[2](2,3)"));
  CHECK(hasLine(text, "%4 = dist_op.reshard %3  4x16xf32  mesh[2](0,1) [S(0)] -> mesh[2](2,3) [R]   est 7.8 us"));
}

TEST_CASE("brief: attributes only when asked, in the order asked") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  CHECK(brief(seed).find("stop_gradient") == std::string::npos);
  const std::string text = brief(seed, {"transpose_x", "stop_gradient", "no_such_attribute"});
  CHECK(hasLine(text, "%6 = pd_op.matmul %5, %2  -> 4x16xf32 [S(1)]  {transpose_x:false,stop_gradient:[false]}"));
  CHECK(hasLine(text, "%9 = dist_op.reshard %8  4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 7.8 us"));
}

TEST_CASE("brief: the cost flags of plan change the estimates") {
  Viewed seed = viewFile("samples/seed_mlp_after.ir");
  CostModel slow;
  slow.launchUs = 100;
  ViewContext view(*seed.parsed.program, *seed.parsed.source, slow);
  const std::string text = writeBrief(view, OpSelection::all(view.ops), {});
  CHECK(hasLine(text, "%9 = dist_op.reshard %8  4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 101.2 us"));
}

TEST_CASE("brief: a focus keeps the ops within K steps and marks the gaps") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  CHECK(focused(seed, "%9", 0) == "...\n%9 = dist_op.reshard %8  4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 7.8 us\n...\n");
  const std::vector<std::string> near = lines(focused(seed, "%9", 1));
  CHECK(near == std::vector<std::string>{"...", "%8 = pd_op.matmul %7, %1  -> 4x8xf32 [P(SUM)]",
                                         "%9 = dist_op.reshard %8  4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 7.8 us",
                                         "%10 = pd_op.relu %9  -> 4x8xf32 [R]", "..."});
  // %10 has three users, each one step away: 5 ops and 3 gaps.
  CHECK(lines(focused(seed, "%10", 1)).size() == 8);

  std::string error;
  CHECK_FALSE(selectNeighbourhood(*seed.view, "%99", 1, &error));
  CHECK(error == "--focus: no value named %99 in the program");
}

TEST_CASE("brief: a focus inside a region shows the region ops around it") {
  const std::string text = focused(viewFile("tests/golden/pass/if_blocks.expected.ir"), "%10", 0);
  CHECK(hasLine(text, "%5 = pd_op.if %2  -> 4x8xf32 [R]"));
  CHECK(hasLine(text, "    %8 = pd_op.if %3  -> 4x8xf32 [R]"));
  CHECK(hasLine(text, "        %10 = pd_op.tanh %9  -> 4x8xf32 [S(0)]"));
  CHECK(text.find("%9 = ") == std::string::npos);

  // A block argument: its region op and its users.
  const std::string loop = focused(viewFile("tests/golden/roundtrip/all_forms.ir"), "%arg_0", 0);
  CHECK(hasLine(loop, "%13, %14 = pd_op.while %9, %kwarg_lr, %10  -> i64, <<PENDING TYPE>>"));
  CHECK(hasLine(loop, "    %15 = pd_op.less_than %arg_0, %kwarg_lr  -> b"));
}

TEST_CASE("brief: a long chain's neighbourhood is the few ops around the focus") {
  // 5000 relus in a row: depth 2 around the middle is 5 ops, whatever the length.
  std::string text = "{\n    (%0) = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n";
  for (int i = 1; i < 5000; ++i)
    text += "    (%" + std::to_string(i) + ") = \"pd_op.relu\" (%" + std::to_string(i - 1) +
            ") {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n";
  const Viewed chain = viewText(text + "}\n");
  std::string error;
  const std::optional<OpSelection> around = selectNeighbourhood(*chain.view, "%2500", 2, &error);
  REQUIRE(around);
  CHECK(around->shownCount() == 5);
  CHECK(around->chosen(2498));
  CHECK_FALSE(around->chosen(2497));
}
