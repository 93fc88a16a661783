#include "report/result_json.h"

#include "report/diagnostic_formats.h"
#include "report/json_export.h"

namespace reshardctl {

namespace {

using Json = nlohmann::ordered_json;

// Bumped when a document's shape changes incompatibly (schema/*.schema.json).
constexpr int kResultFormatVersion = 1;

const char* changeKindName(OpChange::Kind kind) {
  switch (kind) {
    case OpChange::Kind::Added: return "added";
    case OpChange::Kind::Removed: return "removed";
    case OpChange::Kind::Changed: return "changed";
  }
  return "changed";
}

Json opLocation(const SourceFile& source, const Operation* op) {
  return op ? locationJson(source, op->location()) : Json(nullptr);
}

}  // namespace

Json documentJson(const std::string& kind) {
  return {{"format", "reshardctl-" + kind}, {"version", kResultFormatVersion}};
}

Json placeJson(const SourceFile& source, size_t offset) {
  const SourceFile::LineCol where = source.lineCol(offset);
  return {{"file", source.name()}, {"line", where.line}, {"col", where.column}};
}

Json locationJson(const SourceFile& source, size_t offset) {
  // Ops made by a pass sit at offset 0 (the program's opening brace, never an op).
  if (offset == 0 || offset >= source.text().size()) return nullptr;
  return placeJson(source, offset);
}

Json programIndexJson(size_t index) { return index == 0 ? Json(nullptr) : Json(index); }

Json verifyFileJson(const std::string& file, size_t program, const SourceFile* source,
                    const std::vector<const Diagnostic*>& diagnostics, size_t errors, size_t warnings) {
  Json records = Json::array();
  for (const Diagnostic* d : diagnostics) {
    records.push_back(diagnosticJson(source, *d));
    for (const Diagnostic& note : d->notes) records.push_back(diagnosticJson(source, note));
  }
  return {{"file", file},
          {"program", programIndexJson(program)},
          {"status", errors > 0 ? "errors" : warnings > 0 ? "warnings" : "ok"},
          {"errors", errors},
          {"warnings", warnings},
          {"diagnostics", std::move(records)}};
}

Json neededReshardJson(const SourceFile& source, const NeededReshard& needed) {
  return {{"location", locationJson(source, needed.op->location())},
          {"op", needed.op->name()},
          {"operand", needed.operand},
          {"element", needed.element < 0 ? Json(nullptr) : Json(needed.element)},
          {"value", needed.value},
          {"from", tensorDistToJson(needed.from)},
          {"to", tensorDistToJson(needed.to)}};
}

Json programDiffJson(const ProgramDiff& diff, const SourceFile& before, const SourceFile& after) {
  Json changes = Json::array();
  for (const OpChange& change : diff.changes) {
    const Operation* op = change.after ? change.after : change.before;
    changes.push_back({{"kind", changeKindName(change.kind)},
                       {"op", op->name()},
                       {"before", opLocation(before, change.before)},
                       {"after", opLocation(after, change.after)},
                       {"differences", change.differences}});
  }
  Json json = documentJson("diff");
  json["before"] = before.name();
  json["after"] = after.name();
  json["equal"] = diff.equal();
  json["stat"] = {{"added", diff.count(OpChange::Kind::Added)},
                  {"removed", diff.count(OpChange::Kind::Removed)},
                  {"changed", diff.count(OpChange::Kind::Changed)},
                  {"before_ops", diff.beforeOps},
                  {"after_ops", diff.afterOps}};
  json["changes"] = std::move(changes);
  return json;
}

}  // namespace reshardctl
