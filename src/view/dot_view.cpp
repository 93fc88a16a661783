#include "view/dot_view.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "reshard/placement.h"
#include "support/escape.h"
#include "support/op_names.h"
#include "support/text.h"
#include "view/brief_view.h"

namespace reshardctl {

namespace {

constexpr size_t kNamesInLabel = 4;  // results named in a node label before "..."

class DotWriter {
 public:
  DotWriter(ViewContext& view, const OpSelection& selection)
      : view_(view), selection_(selection), brief_(view, {}) {}

  std::string write() {
    header();
    for (const Value* argument : view_.program.body()->arguments()) argumentNode(*argument);
    block(*view_.program.body(), "top");
    for (const Operation* op : view_.ops.ops()) edgesInto(*op);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  void header() {
    out_ += "digraph reshardctl {\n";
    out_ += "  graph [fontname=\"Helvetica\", fontsize=11, nodesep=0.3, ranksep=0.4, labelloc=t, labeljust=l, label=\"";
    appendDotString(out_, title());
    out_ += "\"];\n";
    out_ += "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", "
            "fillcolor=\"#f4f6f8\", color=\"#8a9bb0\"];\n";
    out_ += "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#6b7785\", fontcolor=\"#44505c\", arrowsize=0.6];\n";
  }

  std::string title() const {
    std::string text = fmt::format("{}: {} ops, {} reshards, est {}", view_.source.name(), view_.ops.size(),
                                   view_.reshards.reports().size(), usText(view_.reshards.totalUs()));
    if (!selection_.isAll())
      text += fmt::format("\naround {}: {} of {} ops", selection_.focus(), selection_.shownCount(), view_.ops.size());
    if (!view_.reshards.reports().empty())
      text += fmt::format("\nreshard colour and border width: planned cost (dearest {})", usText(view_.reshards.maxUs()));
    return text;
  }

  // A block: its ops grouped by mesh into clusters, in order of first
  // appearance; ops on no mesh and reshards between meshes outside them.
  void block(const Block& block, const std::string& key) {
    std::vector<std::pair<int, std::vector<const Operation*>>> groups;
    for (const Operation* op : block) {
      const size_t index = view_.ops.indexOf(*op);
      if (!selection_.shown(index)) continue;
      const int mesh = view_.meshes.meshOfOp(index);
      auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == mesh; });
      if (group == groups.end()) group = groups.insert(groups.end(), {mesh, {}});
      group->second.push_back(op);
    }
    for (const auto& [mesh, ops] : groups) {
      if (mesh == MeshTable::kNoMesh) {
        for (const Operation* op : ops) opWithRegions(*op);
        continue;
      }
      out_ += fmt::format("  subgraph cluster_{}_m{} {{\n    label=\"", key, mesh);
      appendDotString(out_, view_.meshes.text(mesh));
      out_ += fmt::format("\"; style=\"rounded\"; color=\"{}\"; fontcolor=\"{}\"; penwidth=1.5;\n", meshColour(mesh),
                          meshColour(mesh));
      for (const Operation* op : ops) opWithRegions(*op);
      out_ += "  }\n";
    }
  }

  void opWithRegions(const Operation& op) {
    const size_t index = view_.ops.indexOf(op);
    opNode(op, index);
    for (size_t r = 0; r < op.regions().size(); ++r) {
      if (!showsAnything(*op.regions()[r])) continue;
      const std::string key = fmt::format("op{}r{}", index, r);
      out_ += fmt::format("  subgraph cluster_{} {{\n    label=\"", key);
      appendDotString(out_, fmt::format("{} {}", resultNames(op), brief_.regionHeader(op, r)));
      out_ += "\"; style=\"dashed,rounded\"; color=\"#777777\"; fontcolor=\"#555555\";\n";
      for (const Value* argument : op.regions()[r]->arguments()) argumentNode(*argument);
      block(*op.regions()[r], key);
      out_ += "  }\n";
    }
  }

  // Around a focus, a block none of whose ops is shown is left out (a shown
  // op brings its region ops along, so the block's own ops are enough to look at).
  bool showsAnything(const Block& block) const {
    if (selection_.isAll()) return true;
    for (const Operation* op : block)
      if (selection_.shown(view_.ops.indexOf(*op))) return true;
    return false;
  }

  std::string resultNames(const Operation& op) const {
    std::string names;
    for (size_t i = 0; i < op.numResults() && i < kNamesInLabel; ++i)
      names += (i ? ", " : "") + view_.labels.name(op.result(i));
    if (op.numResults() > kNamesInLabel) names += ", ...";
    return names.empty() ? std::string(op.name()) : names + " = " + std::string(op.name());
  }

  void opNode(const Operation& op, size_t index) {
    out_ += fmt::format("  op{} [label=\"", index);
    const ReshardCost* report = op.name() == kReshardOp ? view_.reshards.of(op) : nullptr;
    if (report && report->plan) {
      const Plan& plan = *report->plan;
      std::string label = resultNames(op) + "\n" + placementsText(plan.src.placements) + " -> " +
                          placementsText(plan.dst.placements) + "\n" + usText(plan.estUs);
      if (plan.crossMesh()) label += "\ncross-mesh " + meshText(plan.src.mesh) + " -> " + meshText(plan.dst.mesh);
      appendDotString(out_, label);
      const double heat = view_.reshards.heat(*report);
      out_ += fmt::format("\", shape=box, style=\"filled,bold\", fillcolor=\"{}\", fontcolor=\"{}\", color=\"#7a1a10\", "
                          "penwidth={:.1f}",
                          heatColour(heat), heat > 0.6 ? "#ffffff" : "#1f2a36", 1.0 + 4.0 * heat);
      if (plan.crossMesh()) out_ += ", peripheries=2";
    } else {
      appendDotString(out_, resultNames(op));
      out_ += '"';
      if (report) out_ += ", fillcolor=\"#f2c4c4\"";  // a reshard without a plan
      if (!selection_.chosen(index)) out_ += ", style=\"rounded,dashed\"";  // context around a focus
    }
    out_ += ", tooltip=\"";
    appendDotString(out_, brief_.opLine(index));
    out_ += "\"];\n";
  }

  void argumentNode(const Value& argument) {
    out_ += fmt::format("  a{} [shape=ellipse, style=filled, fillcolor=\"#ffffff\", label=\"", argument.id);
    appendDotString(out_, view_.labels.name(&argument));
    out_ += "\"];\n";
  }

  // The node an operand's edge starts from; a stub when the producer is cut off.
  std::string sourceNode(const Value& value) {
    if (value.definingOp) {
      const size_t index = view_.ops.indexOf(*value.definingOp);
      if (selection_.shown(index)) return fmt::format("op{}", index);
    } else if (argumentShown(value)) {
      return fmt::format("a{}", value.id);
    }
    const std::string stub = fmt::format("v{}", value.id);
    if (stubs_.insert(value.id).second) {
      out_ += "  " + stub + " [shape=plaintext, style=\"\", fontcolor=\"#6b7785\", label=\"";
      appendDotString(out_, view_.labels.name(&value));
      out_ += "\"];\n";
    }
    return stub;
  }

  bool argumentShown(const Value& argument) const {
    const Operation* regionOp = argument.ownerBlock ? argument.ownerBlock->parentOp() : nullptr;
    return !regionOp || selection_.shown(view_.ops.indexOf(*regionOp));
  }

  void edgesInto(const Operation& op) {
    const size_t index = view_.ops.indexOf(op);
    if (!selection_.chosen(index)) return;
    for (size_t i = 0; i < op.numOperands(); ++i) {
      const Value* value = op.operandValue(i);
      if (!value) continue;
      out_ += fmt::format("  {} -> op{} [label=\"", sourceNode(*value), index);
      appendDotString(out_, view_.labels.name(value) + "\n" + view_.labels.typeLabel(value));
      out_ += "\"];\n";
    }
    if (!selection_.isAll()) usesCutOff(op, index);
  }

  // With a focus: a result used by ops left out gets one stub saying how many.
  void usesCutOff(const Operation& op, size_t index) {
    for (size_t i = 0; i < op.numResults(); ++i) {
      size_t outside = 0;
      for (const Operand* use = op.result(i)->firstUse; use; use = use->nextUse())
        outside += selection_.chosen(view_.ops.indexOf(*use->owner())) ? 0 : 1;
      if (outside == 0) continue;
      const uint32_t id = op.result(i)->id;
      out_ += fmt::format("  u{} [shape=plaintext, style=\"\", fontcolor=\"#6b7785\", label=\"", id);
      appendDotString(out_, plural(outside, "more use"));
      out_ += fmt::format("\"];\n  op{} -> u{} [style=dashed, label=\"", index, id);
      appendDotString(out_, view_.labels.name(op.result(i)));
      out_ += "\"];\n";
    }
  }

  ViewContext& view_;
  const OpSelection& selection_;
  BriefFormatter brief_;
  std::unordered_set<uint32_t> stubs_;
  std::string out_;
};

}  // namespace

std::string writeDot(ViewContext& view, const OpSelection& selection) { return DotWriter(view, selection).write(); }

}  // namespace reshardctl
