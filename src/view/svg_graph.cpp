#include "view/svg_graph.h"

#include "reshard/placement.h"
#include "support/escape.h"
#include "view/html_writer.h"

namespace reshardctl {

namespace {

constexpr double kBoxWidth = 190;
constexpr double kBoxHeight = 36;
constexpr double kColumn = kBoxWidth + 22;
constexpr double kRow = kBoxHeight + 44;
constexpr double kMargin = 12;
constexpr size_t kCharsInBox = 27;  // 11px monospace in a 190px box

std::string clipped(std::string text) {
  if (text.size() > kCharsInBox) text = text.substr(0, kCharsInBox - 3) + "...";
  return text;
}

class SvgDrawing {
 public:
  SvgDrawing(HtmlWriter& out, ViewContext& view, const GraphLayout& layout, BriefFormatter& brief)
      : out_(out), view_(view), layout_(layout), brief_(brief), widest_(layout.widestLayer()) {}

  void draw() {
    const double width = 2 * kMargin + static_cast<double>(widest_) * kColumn;
    const double height = 2 * kMargin + static_cast<double>(layout_.layerSizes.size()) * kRow;
    out_.format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
        "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" aria-label=\"dataflow graph\">\n",
        width, height);
    out_ << "<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"6\" "
            "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#6b7785\"/></marker>"
            "</defs>\n"_markup;
    for (const LayoutEdge& edge : layout_.edges) drawEdge(edge);
    for (const LayoutNode& node : layout_.nodes) drawNode(node);
    out_ << "</svg>\n"_markup;
  }

 private:
  double left(const LayoutNode& node) const {
    const double offset = static_cast<double>(widest_ - layout_.layerSizes[node.layer]) / 2;
    return kMargin + (static_cast<double>(node.position) + offset) * kColumn;
  }
  double top(const LayoutNode& node) const { return kMargin + static_cast<double>(node.layer) * kRow; }

  void drawEdge(const LayoutEdge& edge) {
    const LayoutNode& from = layout_.nodes[edge.from];
    const LayoutNode& to = layout_.nodes[edge.to];
    const double x1 = left(from) + kBoxWidth / 2, y1 = top(from) + kBoxHeight;
    const double x2 = left(to) + kBoxWidth / 2, y2 = top(to);
    const double bend = (y2 - y1) / 2;
    out_.format("<path class=\"edge\" d=\"M{:.0f},{:.0f} C{:.0f},{:.0f} {:.0f},{:.0f} {:.0f},{:.0f}\"><title>",
                x1, y1, x1, y1 + bend, x2, y2 - bend, x2, y2);
    out_ << view_.labels.name(edge.value) + " " + view_.labels.typeLabel(edge.value);
    out_ << "</title></path>\n"_markup;
  }

  void drawNode(const LayoutNode& node) {
    const Operation& op = view_.ops.op(node.op);
    const ReshardCost* report = view_.reshards.of(op);
    const bool planned = report && report->plan;
    const bool cross = planned && report->plan->crossMesh();
    out_.format("<g class=\"node{}{}\" data-op=\"{}\" data-def=\"", report ? " reshard" : "",
                cross ? " cross" : "", node.op);
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (i) out_ << " "_markup;
      out_ << view_.labels.name(op.result(i));
    }
    out_.format("\" transform=\"translate({:.0f},{:.0f})\"><title>", left(node), top(node));
    out_ << brief_.opLine(node.op);
    out_ << "</title>"_markup;
    const std::string fill = planned ? heatColour(view_.reshards.heat(*report)) : "#f4f6f8";
    out_.format("<rect width=\"{:.0f}\" height=\"{:.0f}\" rx=\"5\" fill=\"{}\" stroke=\"{}\"/>", kBoxWidth,
                kBoxHeight, fill, meshColour(view_.meshes.meshOfOp(node.op)));
    // Dark reshards take light text.
    const bool light = planned && view_.reshards.heat(*report) > 0.6;
    text(14, std::string(op.name()), light ? "op-name light" : "op-name");
    text(29, secondLine(op, report), light ? "op-detail light" : "op-detail");
    out_ << "</g>\n"_markup;
  }

  std::string secondLine(const Operation& op, const ReshardCost* report) const {
    if (report && report->plan)
      return placementsText(report->plan->src.placements) + "\u2192" + placementsText(report->plan->dst.placements) +
             " " + usText(report->plan->estUs);
    std::string names;
    for (size_t i = 0; i < op.numResults() && names.size() <= kCharsInBox; ++i)
      names += (i ? ", " : "") + view_.labels.name(op.result(i));
    return names;
  }

  void text(double y, const std::string& content, std::string_view cls) {
    out_.format("<text x=\"8\" y=\"{:.0f}\" class=\"{}\">", y, cls);
    out_ << clipped(content);
    out_ << "</text>"_markup;
  }

  HtmlWriter& out_;
  ViewContext& view_;
  const GraphLayout& layout_;
  BriefFormatter& brief_;
  size_t widest_;
};

}  // namespace

void drawSvgGraph(HtmlWriter& out, ViewContext& view, const GraphLayout& layout, BriefFormatter& brief) {
  SvgDrawing(out, view, layout, brief).draw();
}

}  // namespace reshardctl
