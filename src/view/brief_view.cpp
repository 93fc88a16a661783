#include "view/brief_view.h"

#include "support/escape.h"

#include "reshard/placement.h"
#include "support/op_names.h"
#include "syntax/attribute_dictionary.h"
#include "view/listing_walk.h"

namespace reshardctl {

namespace {

std::string_view shapeOfReshard(const Operation& op) {
  for (const Value* value : {op.operandValue(0), op.result(0)})
    if (value && value->type && value->type->isTensor()) return value->type->shapeText;
  return "?";
}

}  // namespace

BriefFormatter::BriefFormatter(ViewContext& view, std::vector<std::string> shownAttributes)
    : view_(view), shownAttributes_(std::move(shownAttributes)), severalMeshes_(view.meshes.size() > 1) {}

std::string BriefFormatter::opLine(size_t opIndex) {
  const Operation& op = view_.ops.op(opIndex);
  std::string line;
  for (size_t i = 0; i < op.numResults(); ++i) {
    if (i) line += ", ";
    line += view_.labels.name(op.result(i));
  }
  if (op.numResults() > 0) line += " = ";
  line += op.name();
  appendOperands(line, op);
  const ReshardCost* report = op.name() == kReshardOp ? view_.reshards.of(op) : nullptr;
  if (report && report->plan) {
    appendReshard(line, op, *report);
  } else {
    appendResultTypes(line, opIndex);
    if (report) line += "   no plan: " + report->error;
  }
  appendAttributes(line, op);
  return line;
}

void BriefFormatter::appendOperands(std::string& line, const Operation& op) {
  for (size_t i = 0; i < op.numOperands(); ++i) {
    line += i == 0 ? " " : ", ";
    line += view_.labels.name(op.operandValue(i));
  }
}

// `4x8xf32  mesh[2](0,1): [P(SUM)] -> [R]   est 7.8 us`; between meshes
// `mesh[2](0,1) [P(SUM)] -> mesh[2](2,3) [R]`.
void BriefFormatter::appendReshard(std::string& line, const Operation& op, const ReshardCost& report) {
  const Plan& plan = *report.plan;
  line += "  ";
  line += shapeOfReshard(op);
  line += "  ";
  if (plan.crossMesh()) {
    line += layoutText(plan.src) + " -> " + layoutText(plan.dst);
  } else {
    line += meshText(plan.src.mesh) + ": " + placementsText(plan.src.placements) + " -> " +
            placementsText(plan.dst.placements);
  }
  line += "   est " + usText(plan.estUs);
}

void BriefFormatter::appendResultTypes(std::string& line, size_t opIndex) {
  const Operation& op = view_.ops.op(opIndex);
  if (op.numResults() > 0) {
    line += "  -> ";
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (i) line += ", ";
      line += view_.labels.typeLabel(op.result(i));
    }
  }
  // One mesh says nothing; with several, each op names its own.
  const int mesh = view_.meshes.meshOfOp(opIndex);
  if (severalMeshes_ && mesh != MeshTable::kNoMesh) line += "  on " + view_.meshes.text(mesh);
}

void BriefFormatter::appendAttributes(std::string& line, const Operation& op) {
  if (shownAttributes_.empty()) return;
  const std::vector<AttributeEntry> entries = splitAttributes(op.attributes());
  std::string shown;
  for (const std::string& key : shownAttributes_)
    for (const AttributeEntry& entry : entries)
      if (entry.key == key) {
        if (!shown.empty()) shown += ',';
        shown += std::string(entry.key) + ":" + std::string(entry.value);
      }
  if (!shown.empty()) line += "  {" + shown + "}";
}

std::string BriefFormatter::regionHeader(const Operation& op, size_t region) {
  const Block& block = *op.regions()[region];
  switch (op.regionSyntax()) {
    case RegionSyntax::If: return region == 0 ? "then:" : "else:";
    case RegionSyntax::Group:
    case RegionSyntax::While:
    case RegionSyntax::None: break;
  }
  std::string header = op.regionSyntax() == RegionSyntax::None ? "region " + std::to_string(region) : "body";
  if (!block.arguments().empty()) {
    header += '(';
    for (size_t i = 0; i < block.arguments().size(); ++i) {
      if (i) header += ", ";
      header += view_.labels.name(block.arguments()[i]);
    }
    header += ')';
  }
  return header + ":";
}

std::string BriefFormatter::programArgumentsLine() {
  const auto& arguments = view_.program.body()->arguments();
  if (arguments.empty()) return "";
  std::string line = "arguments: ";
  for (size_t i = 0; i < arguments.size(); ++i)
    line += (i ? ", " : "") + view_.labels.name(arguments[i]) + " " + view_.labels.typeLabel(arguments[i]);
  return line;
}

void writeBrief(ViewContext& view, const OpSelection& selection, const std::vector<std::string>& shownAttributes,
                OutputSink& out, bool terminal) {
  BriefFormatter format(view, shownAttributes);
  std::string text;
  auto add = [&](size_t depth, std::string_view line) {
    text.assign(2 * depth, ' ');
    text += line;
    text += '\n';
    if (terminal) escapeForTerminal(text);
    out += text;
  };
  if (std::string arguments = format.programArgumentsLine(); !arguments.empty()) add(0, arguments);
  walkListing(view, selection, [&](const ListingRow& row) {
    switch (row.kind) {
      case ListingRow::Kind::Op: add(row.depth, format.opLine(row.opIndex)); break;
      case ListingRow::Kind::Region: add(row.depth, format.regionHeader(view.ops.op(row.opIndex), row.region)); break;
      case ListingRow::Kind::Gap: add(row.depth, "..."); break;
    }
    return true;
  });
}

std::string writeBrief(ViewContext& view, const OpSelection& selection,
                       const std::vector<std::string>& shownAttributes) {
  OutputSink text;
  writeBrief(view, selection, shownAttributes, text, false);
  return text.take();
}

}  // namespace reshardctl
