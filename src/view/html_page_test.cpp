#include "view/html_page.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>

#include "view/graph_layout.h"
#include "view/html_writer.h"
#include "view/side_by_side.h"
#include "view/view_testing.h"

using namespace reshardctl;
using namespace reshardctl::testing;

namespace {

std::string pageOf(const Viewed& viewed, const HtmlOptions& options = {}) {
  return writeHtml(*viewed.view, OpSelection::all(viewed.view->ops), options);
}

// `length` relus in a chain after one data op.
std::string chain(int length) {
  std::string text = "{\n    (%0) = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n";
  for (int i = 1; i <= length; ++i)
    text += "    (%" + std::to_string(i) + ") = \"pd_op.relu\" (%" + std::to_string(i - 1) +
            ") {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n";
  return text + "}\n";
}

}  // namespace

TEST_CASE("html: one self-contained page: nothing fetched") {
  const std::string page = pageOf(viewFile("samples/seed_mlp_after.ir"));
  CHECK(page.rfind("<!DOCTYPE html>\n", 0) == 0);
  CHECK(page.find("<meta charset=\"utf-8\">") != std::string::npos);
  // The SVG namespace is a name, not a fetch; nothing else names a URL.
  CHECK(occurrences(page, "http") == occurrences(page, "xmlns=\"http://www.w3.org/2000/svg\""));
  for (const char* fetch : {"<link", " src=", "@import", "url(http", "fetch(", "XMLHttpRequest"}) {
    CAPTURE(fetch);
    CHECK(page.find(fetch) == std::string::npos);
  }
  CHECK(occurrences(page, "<style>") == 1);
  CHECK(occurrences(page, "<script>") == 1);
  CHECK(page.substr(page.size() - 8) == "</html>\n");
}

TEST_CASE("html: the listing, the reshards with their plans, the summary, the picture") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  const std::string page = pageOf(seed);
  // Listing: one foldable row per op, the brief line as its summary, reshards marked with their heat.
  CHECK(occurrences(page, "<details class=\"op") == seed.view->ops.size());
  CHECK(occurrences(page, "<details class=\"op reshard\"") == 2);
  CHECK(page.find("<details class=\"op reshard\" id=\"op9\" data-line=\"11\" data-def=\"%9\" data-use=\"%8\" "
                  "style=\"--heat:" + heatColour(1.0) + "\">") != std::string::npos);
  CHECK(page.find("<code style=\"--d:0\">%6 = pd_op.matmul %5, %2  -&gt; 4x16xf32 [S(1)]</code>") != std::string::npos);
  CHECK(page.find("<tr><th class=\"mono\">transpose_x</th><td class=\"mono\">false</td></tr>") != std::string::npos);
  // Every reshard with its plan steps and cost.
  CHECK(occurrences(page, "<div class=\"reshard-card\"") == 2);
  CHECK(page.find("<a href=\"#op9\">line 11</a> <code>%9 = dist_op.reshard %8</code>") != std::string::npos);
  CHECK(page.find("<td>1</td><td>all_reduce</td><td>0</td><td>-</td><td>SUM</td><td class=\"mono\">[0,1]</td>"
                  "<td class=\"num\">128</td>") != std::string::npos);
  // Per mesh: ops, reshards, steps, bytes per rank, time.
  CHECK(page.find("mesh[2](0,1)</td><td class=\"num\">28</td><td class=\"num\">2</td><td class=\"num\">2</td>"
                  "<td class=\"num\">384</td><td class=\"num\">15.6 us</td>") != std::string::npos);
  // The picture: a box per op, reshards filled by heat.
  CHECK(occurrences(page, "<svg ") == 1);
  CHECK(occurrences(page, "<g class=\"node") == seed.view->ops.size());
  CHECK(occurrences(page, "<g class=\"node reshard\"") == 2);
  CHECK(page.find("<g class=\"node reshard\" data-op=\"9\" data-def=\"%9\"") != std::string::npos);
}

TEST_CASE("html: --compare puts apply's before and after side by side") {
  const Viewed after = viewFile("samples/seed_mlp_after.ir");
  Viewed before = viewFile("samples/seed_mlp_before.ir");
  HtmlOptions options;
  options.before = before.view.get();
  const std::string page = pageOf(after, options);
  CHECK(page.find("<section id=\"compare\">") != std::string::npos);
  CHECK(page.find("2 ops added, 0 removed, 2 changed") != std::string::npos);
  CHECK(occurrences(page, "<tr class=\"added\"><td class=\"before\"></td><td class=\"after reshard\">") == 2);
  CHECK(occurrences(page, "<tr class=\"changed\"") == 2);
  CHECK(page.find("before (samples/seed_mlp_before.ir): 26 ops, 0 reshards, est 0.0 us") != std::string::npos);

  const Comparison rows = compareSideBySide(*before.view, *after.view);
  CHECK(rows.rows.size() == 28);
  CHECK(rows.added == 2);
  size_t paired = 0;
  for (const CompareRow& row : rows.rows) paired += row.before && row.after ? 1 : 0;
  CHECK(paired == 26);
}

TEST_CASE("html: large programs: capped listing, no picture past the limit") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  HtmlOptions options;
  options.maxOps = 5;
  const std::string page = pageOf(seed, options);
  CHECK(occurrences(page, "<details class=\"op") == 5);
  CHECK(page.find("Only the first 5 ops are listed (--max-ops).") != std::string::npos);
  CHECK(page.find("mesh[2](0,1)</td><td class=\"num\">28</td>") != std::string::npos);  // the summary counts all

  const std::string big = pageOf(viewText(chain(static_cast<int>(kMaxGraphNodes))));
  CHECK(big.find("<svg ") == std::string::npos);
  CHECK(big.find("The picture is drawn for at most 1500 ops") != std::string::npos);
  CHECK(pageOf(viewText(chain(100))).find("<svg ") != std::string::npos);
}

TEST_CASE("html: a focus lists only the neighbourhood") {
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  std::string error;
  const std::optional<OpSelection> around = selectNeighbourhood(*seed.view, "%9", 1, &error);
  REQUIRE(around);
  const std::string page = writeHtml(*seed.view, *around, {});
  CHECK(occurrences(page, "<details class=\"op") == 3);
  CHECK(occurrences(page, "<div class=\"reshard-card\"") == 1);
  CHECK(page.find("showing the 3 ops around %9") != std::string::npos);
}

TEST_CASE("html: text from the dump is escaped, bytes that are not UTF-8 replaced") {
  const Viewed odd = viewText(
      "{\n    (%0) = \"pd_op.data\" () {name:\"<script>&\\\"\xff\"} : () -> builtin.tensor<4xf32>\n}\n");
  const std::string page = pageOf(odd);
  CHECK(page.find("&quot;&lt;script&gt;&amp;\\&quot;\xEF\xBF\xBD&quot;") != std::string::npos);
  CHECK(occurrences(page, "<script>") == 1);  // the page's own
}

TEST_CASE("markup: the page's writer escapes text unless it is marked as markup") {
  HtmlWriter out;
  const std::string name = "<img src=x onerror=alert(1)>";
  out << "<td>"_markup << name << Markup::trusted("</td>");
  out.format("<tr class=\"{}\" data-n=\"{}\">", name, 3);  // string arguments are text too
  CHECK(out.take() ==
        "<td>&lt;img src=x onerror=alert(1)&gt;</td><tr class=\"&lt;img src=x onerror=alert(1)&gt;\" data-n=\"3\">");
}

TEST_CASE("layout: every edge points down, one place per op in its layer") {
  for (const char* file : {"samples/seed_mlp_after.ir", "tests/golden/pass/if_blocks.expected.ir",
                           "tests/golden/roundtrip/all_forms.ir", "tests/golden/views/pipeline_after.ir"}) {
    CAPTURE(file);
    const Viewed viewed = viewFile(file);
    const GraphLayout layout = layoutGraph(*viewed.view, OpSelection::all(viewed.view->ops));
    CHECK(layout.nodes.size() == viewed.view->ops.size());
    for (const LayoutEdge& edge : layout.edges) CHECK(layout.nodes[edge.from].layer < layout.nodes[edge.to].layer);
    std::set<std::pair<size_t, size_t>> places;
    for (const LayoutNode& node : layout.nodes) {
      CHECK(node.position < layout.layerSizes[node.layer]);
      CHECK(places.insert({node.layer, node.position}).second);
    }
  }
  // A parameter used late is drawn just above its first user, not at the top.
  const Viewed seed = viewFile("samples/seed_mlp_after.ir");
  const GraphLayout layout = layoutGraph(*seed.view, OpSelection::all(seed.view->ops));
  std::vector<size_t> gapToFirstUse(layout.nodes.size(), SIZE_MAX);
  for (const LayoutEdge& edge : layout.edges)
    gapToFirstUse[edge.from] =
        std::min(gapToFirstUse[edge.from], layout.nodes[edge.to].layer - layout.nodes[edge.from].layer);
  for (size_t node = 0; node < layout.nodes.size(); ++node)
    if (seed.view->ops.op(layout.nodes[node].op).numOperands() == 0 && gapToFirstUse[node] != SIZE_MAX)
      CHECK(gapToFirstUse[node] == 1);
  CHECK(layout.nodes[0].layer > 0);  // %0, the learning rate, is first used by the optimizer at the end
}
