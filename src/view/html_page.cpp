#include "view/html_page.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/plan_output.h"
#include "reshard/placement.h"
#include "support/escape.h"
#include "support/text.h"
#include "syntax/attribute_dictionary.h"
#include "view/brief_view.h"
#include "view/graph_layout.h"
#include "view/html_assets.h"
#include "view/listing_walk.h"
#include "view/html_writer.h"
#include "view/side_by_side.h"
#include "view/svg_graph.h"

namespace reshardctl {

namespace {

std::string programStats(const ViewContext& view) {
  return fmt::format("{}, {}, est {}", plural(view.ops.size(), "op"),
                     plural(view.reshards.reports().size(), "reshard"), usText(view.reshards.totalUs()));
}

class PageWriter {
 public:
  PageWriter(ViewContext& view, const OpSelection& selection, const HtmlOptions& options)
      : view_(view), selection_(selection), options_(options), brief_(view, {}) {}

  std::string write() {
    head();
    out_ << "<main>\n"_markup;
    summary();
    graph();
    reshardCards();
    if (options_.before) comparison(*options_.before);
    listing();
    out_ << "</main>\n<footer>Written by <code>reshardctl print --emit=html</code>. Costs: plan's alpha-beta model "
            "(the same flags as <code>reshardctl plan</code>). Nothing on this page is fetched from the "
            "network.</footer>\n<script>\n"_markup;
    out_ << Markup::trusted(kPageScript);
    out_ << "</script>\n</body>\n</html>\n"_markup;
    return out_.take();
  }

 private:
  void head() {
    out_ << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>reshardctl: "_markup;
    out_ << view_.source.name();
    out_ << "</title>\n<style>\n"_markup;
    out_ << Markup::trusted(kPageStyle);
    out_ << "</style>\n</head>\n<body>\n<header>\n<h1>"_markup;
    out_ << view_.source.name();
    out_ << "</h1>\n<span class=\"stats\">"_markup;
    out_ << programStats(view_);
    if (!selection_.isAll())
      out_ << fmt::format("; showing the {} ops around {}", selection_.shownCount(), selection_.focus());
    out_ << "</span>\n<input id=\"search\" type=\"search\" placeholder=\"find a value: %9\" aria-label=\"value name\">\n"
            "<span id=\"search-status\"></span>\n<button id=\"expand\">expand all</button>"
            "<button id=\"collapse\">collapse all</button>\n</header>\n"_markup;
  }

  // One row per mesh (ops, and reshards within it), one per pair of meshes
  // that reshards cross, and the total.
  void summary() {
    std::vector<size_t> opsPerMesh(view_.meshes.size(), 0);
    size_t meshless = 0;
    for (size_t i = 0; i < view_.ops.size(); ++i) {
      const int mesh = view_.meshes.meshOfOp(i);
      if (mesh == MeshTable::kNoMesh) ++meshless;
      else ++opsPerMesh[static_cast<size_t>(mesh)];
    }
    std::vector<MeshCostTotal> costs = view_.reshards.perMesh();
    std::vector<bool> used(costs.size(), false);
    out_ << "<section id=\"summary\"><h2>Per mesh</h2>\n<table>\n<tr><th>mesh</th><th class=\"num\">ops</th>"
            "<th class=\"num\">reshards</th><th class=\"num\">steps</th><th class=\"num\">bytes per rank</th>"
            "<th class=\"num\">est time</th></tr>\n"_markup;
    MeshCostTotal total{"total"};
    for (size_t mesh = 0; mesh < opsPerMesh.size(); ++mesh) {
      MeshCostTotal row{view_.meshes.text(static_cast<int>(mesh))};
      for (size_t k = 0; k < costs.size(); ++k)
        if (costs[k].meshes == row.meshes) {
          row = costs[k];
          used[k] = true;
        }
      summaryRow(row, opsPerMesh[mesh], meshColour(static_cast<int>(mesh)), total);
    }
    for (size_t k = 0; k < costs.size(); ++k)
      if (!used[k]) summaryRow(costs[k], 0, "", total);
    if (meshless > 0) summaryRow({"no mesh"}, meshless, "", total);
    out_ << "<tr class=\"total\">"_markup;
    summaryCells(total, view_.ops.size());
    out_ << "</tr>\n</table>\n"_markup;
    if (options_.before) {
      out_ << "<p class=\"note\">"_markup;
      out_ << fmt::format("before ({}): {}", options_.before->source.name(), programStats(*options_.before));
      out_ << "</p>\n"_markup;
    }
    out_ << "</section>\n"_markup;
  }

  void summaryRow(const MeshCostTotal& row, size_t ops, std::string_view colour, MeshCostTotal& total) {
    out_ << "<tr>"_markup;
    summaryCells(row, ops, colour);
    out_ << "</tr>\n"_markup;
    total.reshards += row.reshards;
    total.steps += row.steps;
    total.bytes += row.bytes;
    total.estUs += row.estUs;
  }

  void summaryCells(const MeshCostTotal& row, size_t ops, std::string_view colour = "") {
    out_ << "<td class=\"mono\">"_markup;
    if (!colour.empty()) out_.format("<span class=\"swatch\" style=\"background:{}\"></span>", colour);
    out_ << row.meshes;
    out_.format("</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                "<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                ops, row.reshards, row.steps, row.bytes, usText(row.estUs));
  }

  void graph() {
    out_ << "<section id=\"graph\"><h2>Dataflow</h2>\n"_markup;
    size_t chosen = 0;
    for (size_t i = 0; i < view_.ops.size() && chosen <= kMaxGraphNodes; ++i) chosen += selection_.chosen(i) ? 1 : 0;
    if (chosen > kMaxGraphNodes) {
      out_.format("<p class=\"note\">The picture is drawn for at most {} ops; this program has {}. "
                  "<code>--focus %N --depth K</code> draws the neighbourhood of a value.</p></section>\n",
                  kMaxGraphNodes, view_.ops.size());
      return;
    }
    out_ << "<p class=\"note\">Boxes are ops (border: mesh colour), arrows values; reshards are filled from pale "
            "yellow (cheap) to red (the dearest); dashed: between meshes. Click a box for its row.</p>\n"
            "<div class=\"graph-box\">\n"_markup;
    drawSvgGraph(out_, view_, layoutGraph(view_, selection_), brief_);
    out_ << "</div></section>\n"_markup;
  }

  void reshardCards() {
    out_ << "<section id=\"reshards\"><h2>Reshards</h2>\n"_markup;
    size_t cards = 0;
    for (const ReshardCost& report : view_.reshards.reports()) {
      const size_t index = view_.ops.indexOf(*report.op);
      if (!selection_.chosen(index)) continue;
      if (cards++ == options_.maxOps) {
        out_.format("<p class=\"note\">Only the first {} reshards are shown (--max-ops).</p>\n", options_.maxOps);
        break;
      }
      reshardCard(report, index);
    }
    if (cards == 0) out_ << "<p class=\"note\">No reshards.</p>\n"_markup;
    out_ << "</section>\n"_markup;
  }

  void reshardCard(const ReshardCost& report, size_t index) {
    const std::string heat = heatColour(view_.reshards.heat(report));
    out_.format("<div class=\"reshard-card\" style=\"--heat:{}\"><span class=\"cost\">", heat);
    out_ << (report.plan ? usText(report.plan->estUs) : "no plan");
    out_.format("</span><div class=\"head\"><a href=\"#op{}\">line {}</a> <code>", index, report.line);
    out_ << fmt::format("{} = dist_op.reshard {}", view_.labels.name(report.op->result(0)),
                        view_.labels.name(report.op->operandValue(0)));
    out_ << "</code></div>\n"_markup;
    if (!report.plan) {
      out_ << "<div class=\"note\">"_markup;
      out_ << report.error;
      out_ << "</div></div>\n"_markup;
      return;
    }
    out_ << "<div class=\"mono\">"_markup;
    out_ << layoutText(report.plan->src) + "  ->  " + layoutText(report.plan->dst) +
                (report.plan->crossMesh() ? "  (between meshes)" : "");
    out_ << "</div>\n"_markup;
    stepTable(*report.plan);
    out_ << "</div>\n"_markup;
  }

  void stepTable(const Plan& plan) {
    if (plan.steps.empty()) {
      out_ << "<div class=\"note\">No steps: every rank already holds its piece.</div>\n"_markup;
      return;
    }
    out_ << "<table><tr><th>#</th><th>step</th><th>mesh dim</th><th>tensor dim</th><th>reduce</th><th>groups</th>"
            "<th class=\"num\">bytes/rank</th><th>after</th><th class=\"num\">est</th></tr>\n"_markup;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const Step& step = plan.steps[i];
      // The tensor dims' "0->1" is the planner's own text; a raw '>' is valid HTML text.
      out_.format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"mono\">", i + 1,
                  stepKindName(step.kind), step.meshDim < 0 ? "-" : std::to_string(step.meshDim),
                  Markup::trusted(stepTensorDimText(step)), step.reduce ? reduceTypeName(*step.reduce) : "-");
      out_ << stepGroupsText(step);
      out_.format("</td><td class=\"num\">{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td></tr>\n",
                  step.bytesPerRank, placementsText(step.to.placements), usText(step.estUs));
    }
    out_ << "</table>\n"_markup;
  }

  void comparison(ViewContext& before) {
    const Comparison compared = compareSideBySide(before, view_);
    BriefFormatter beforeBrief(before, {});
    out_ << "<section id=\"compare\"><h2>Before / after</h2>\n<p class=\"note\">"_markup;
    out_ << fmt::format("{} added, {} removed, {} changed", plural(compared.added, "op"), compared.removed,
                        compared.changed);
    out_ << "</p>\n<table class=\"compare\">\n<tr><th>"_markup;
    out_ << "before: " + before.source.name();
    out_ << "</th><th>"_markup;
    out_ << "after: " + view_.source.name();
    out_ << "</th></tr>\n"_markup;
    size_t rows = 0;
    for (const CompareRow& row : compared.rows) {
      if (rows++ == options_.maxOps) {
        out_.format("<tr><td colspan=\"2\" class=\"note\">Only the first {} rows are shown (--max-ops).</td></tr>\n",
                    options_.maxOps);
        break;
      }
      static constexpr std::string_view kMarks[] = {"same", "added", "removed", "changed"};
      out_.format("<tr class=\"{}\"", kMarks[static_cast<size_t>(row.mark)]);
      if (!row.differences.empty()) {
        out_ << " title=\""_markup;
        out_ << row.differences;
        out_ << "\""_markup;
      }
      out_ << ">"_markup;
      compareCell(before, beforeBrief, row.before, "before");
      compareCell(view_, brief_, row.after, "after");
      out_ << "</tr>\n"_markup;
    }
    out_ << "</table></section>\n"_markup;
  }

  void compareCell(const ViewContext& side, BriefFormatter& brief, std::optional<size_t> op, std::string_view column) {
    const bool reshard = op && side.reshards.of(side.ops.op(*op));
    out_.format("<td class=\"{}{}\">", column, reshard ? " reshard" : "");
    if (op) out_ << std::string(2 * side.ops.depth(*op), ' ') + brief.opLine(*op);
    out_ << "</td>"_markup;
  }

  void listing() {
    out_ << "<section id=\"ops\"><h2>Program</h2>\n<p class=\"note\">The brief view: one row per op (click for its "
            "attributes and types); reshards are highlighted in their cost's colour.</p>\n<div class=\"ops\">\n"_markup;
    size_t rows = 0;
    walkListing(view_, selection_, [&](const ListingRow& row) {
      if (row.kind == ListingRow::Kind::Op && rows++ == options_.maxOps) {
        out_.format("<p class=\"note\">Only the first {} ops are listed (--max-ops).</p>\n", options_.maxOps);
        return false;
      }
      if (row.kind == ListingRow::Kind::Op) opRow(row);
      else regionRow(row);
      return true;
    });
    out_ << "</div></section>\n"_markup;
  }

  void regionRow(const ListingRow& row) {
    out_.format("<div class=\"region\"><code style=\"--d:{}\">", row.depth);
    out_ << (row.kind == ListingRow::Kind::Gap ? "..." : brief_.regionHeader(view_.ops.op(row.opIndex), row.region));
    out_ << "</code></div>\n"_markup;
  }

  void opRow(const ListingRow& row) {
    const Operation& op = view_.ops.op(row.opIndex);
    const ReshardCost* report = view_.reshards.of(op);
    out_.format("<details class=\"op{}\" id=\"op{}\" data-line=\"{}\" data-def=\"", report ? " reshard" : "",
                row.opIndex, view_.source.lineCol(op.location()).line);
    valueNames(op, true);
    out_ << "\" data-use=\""_markup;
    valueNames(op, false);
    out_ << "\""_markup;
    if (report) out_.format(" style=\"--heat:{}\"", heatColour(view_.reshards.heat(*report)));
    out_.format("><summary><span class=\"ln\">{}</span><code style=\"--d:{}\">",
                view_.source.lineCol(op.location()).line, row.depth);
    out_ << brief_.opLine(row.opIndex);
    out_ << "</code></summary>\n<div class=\"attrs\">"_markup;
    if (report && report->plan) stepTable(*report->plan);
    attributeTable(op);
    out_ << "</div></details>\n"_markup;
  }

  void valueNames(const Operation& op, bool results) {
    const size_t count = results ? op.numResults() : op.numOperands();
    for (size_t i = 0; i < count; ++i) {
      const Value* value = results ? op.result(i) : op.operandValue(i);
      if (!value) continue;
      if (i) out_ << " "_markup;
      out_ << view_.labels.name(value);
    }
  }

  // The attributes (those asked for by --show-attr first), then every
  // operand's and result's full type.
  void attributeTable(const Operation& op) {
    out_ << "<table>"_markup;
    std::vector<AttributeEntry> entries = splitAttributes(op.attributes());
    std::stable_partition(entries.begin(), entries.end(), [&](const AttributeEntry& entry) {
      return std::find(options_.shownAttributes.begin(), options_.shownAttributes.end(), entry.key) !=
             options_.shownAttributes.end();
    });
    for (const AttributeEntry& entry : entries) attributeRow(entry.key, entry.value);
    for (size_t i = 0; i < op.numOperands(); ++i) typeRow(op.operandValue(i));
    for (size_t i = 0; i < op.numResults(); ++i) typeRow(op.result(i));
    out_ << "</table>"_markup;
  }

  void typeRow(const Value* value) {
    if (value) attributeRow(view_.labels.name(value), value->type ? value->type->text : "<<NULL TYPE>>");
  }

  void attributeRow(std::string_view key, std::string_view value) {
    out_ << "<tr><th class=\"mono\">"_markup;
    out_ << key;
    out_ << "</th><td class=\"mono\">"_markup;
    out_ << value;
    out_ << "</td></tr>"_markup;
  }

  ViewContext& view_;
  const OpSelection& selection_;
  const HtmlOptions& options_;
  BriefFormatter brief_;
  HtmlWriter out_;
};

}  // namespace

std::string writeHtml(ViewContext& view, const OpSelection& selection, const HtmlOptions& options) {
  return PageWriter(view, selection, options).write();
}

}  // namespace reshardctl
