#include "report/json_export.h"

#include "ir/dist_attr.h"
#include "syntax/attribute_dict.h"
#include "syntax/printer.h"

namespace reshardctl {

namespace {

using json = nlohmann::ordered_json;

// Bumped when the shape changes incompatibly (schema/program.schema.json).
constexpr int kFormatVersion = 1;

json entryToJson(const DistEntry& entry) {
  switch (entry.kind) {
    case DistEntry::Kind::Null: return nullptr;
    case DistEntry::Kind::Tensor: return tensorDistToJson(entry.tensor);
    case DistEntry::Kind::List: {
      json list = json::array();
      for (const TensorDistAttr& dist : entry.list) list.push_back(tensorDistToJson(dist));
      return list;
    }
  }
  return nullptr;
}

class Exporter {
 public:
  Exporter(const Program& program, const SourceFile* source) : names_(program), source_(source) {}

  json arguments(const Block& block) const {
    json list = json::array();
    for (const Value* argument : block.arguments()) list.push_back(value(argument));
    return list;
  }

  json block(const Block& block) {
    json ops = json::array();
    for (const Operation* op : block) ops.push_back(operation(*op));
    return {{"arguments", arguments(block)}, {"ops", std::move(ops)}};
  }

  json operation(const Operation& op) {
    json attributes = json::object();
    for (const AttributeEntry& entry : splitAttributes(op.attributes()))
      attributes[std::string(entry.key)] = std::string(entry.value);
    json results = json::array();
    for (size_t i = 0; i < op.numResults(); ++i) results.push_back(value(op.result(i)));
    json operands = json::array();
    for (size_t i = 0; i < op.numOperands(); ++i) operands.push_back(value(op.operandValue(i)));
    json regions = json::array();
    for (const Block* region : op.regions()) regions.push_back(block(*region));
    return {{"name", op.name()},
            {"line", line(op)},
            {"results", std::move(results)},
            {"operands", std::move(operands)},
            {"attributes", std::move(attributes)},
            {"dist_attr", op.distAttr() ? opDistToJson(*op.distAttr()) : json(nullptr)},
            {"regions", std::move(regions)}};
  }

 private:
  // A value as it is printed, with its type and, when distributed, how.
  json value(const Value* v) const {
    if (!v) return {{"name", nullptr}, {"type", nullptr}, {"dist", nullptr}};
    return {{"name", names_.name(v)},
            {"type", v->type ? json(v->type->text) : json(nullptr)},
            {"dist", v->dist ? tensorDistToJson(*v->dist) : json(nullptr)}};
  }

  json line(const Operation& op) const {
    // Ops made by a pass have no place in the source (location 0 is the
    // program's opening brace, never an op).
    if (!source_ || op.location() == 0 || op.location() >= source_->text().size()) return nullptr;
    return source_->lineCol(op.location()).line;
  }

  ValueNames names_;
  const SourceFile* source_;
};

}  // namespace

json meshToJson(const ProcessMesh& mesh) {
  return {{"shape", mesh.shape},
          {"process_ids", mesh.idsKnown ? json(mesh.processIds) : json(nullptr)}};
}

json tensorDistToJson(const TensorDistAttr& dist) {
  json partial = json::array();
  for (const PartialDim& p : dist.partials)
    partial.push_back({{"mesh_dim", p.meshDim}, {"reduce", reduceTypeName(p.reduce)}});
  return {{"mesh", meshToJson(dist.mesh)}, {"dims_mapping", dist.dimsMapping},
          {"partial", std::move(partial)}};
}

json opDistToJson(const OpDistAttr& attr) {
  json operands = json::array();
  for (const DistEntry& entry : attr.operands) operands.push_back(entryToJson(entry));
  json results = json::array();
  for (const DistEntry& entry : attr.results) results.push_back(entryToJson(entry));
  return {{"mesh", meshToJson(attr.mesh)},
          {"operands", std::move(operands)},
          {"results", std::move(results)},
          {"chunk_id", attr.chunkId ? json(*attr.chunkId) : json(nullptr)}};
}

namespace {

// The document's fields before "ops".
json header(const Program& program, const SourceFile* source, Exporter& exporter) {
  return {{"format", "reshardctl-program"},
          {"version", kFormatVersion},
          {"source", source ? json(source->name()) : json(nullptr)},
          {"arguments", exporter.arguments(*program.body())}};
}

constexpr int kIndent = 2;

std::string dumpIndented(const json& value) {
  return value.dump(kIndent, ' ', false, json::error_handler_t::replace);
}

// `value` dumped as it appears `depth` levels deep in an indented document:
// nlohmann indents nested lines relative to the value's own start.
void appendAtDepth(std::string& out, const json& value, size_t depth) {
  const std::string text = dumpIndented(value);
  const std::string margin(depth * kIndent, ' ');
  size_t start = 0;
  for (size_t newline; (newline = text.find('\n', start)) != std::string::npos; start = newline + 1) {
    out.append(text, start, newline + 1 - start);
    out += margin;
  }
  out.append(text, start, std::string::npos);
}

}  // namespace

json programToJson(const Program& program, const SourceFile* source) {
  Exporter exporter(program, source);
  json document = header(program, source, exporter);
  json ops = json::array();
  for (const Operation* op : *program.body()) ops.push_back(exporter.operation(*op));
  document["ops"] = std::move(ops);
  return document;
}

std::string dumpJson(const nlohmann::ordered_json& value) { return dumpIndented(value) + "\n"; }

bool writeProgramJson(const Program& program, const SourceFile* source, std::FILE* out) {
  Exporter exporter(program, source);
  OutputBuffer sink(out);
  // The header object without its closing brace, then "ops" by hand.
  std::string text = dumpIndented(header(program, source, exporter));
  text.resize(text.size() - 2);  // "\n}"
  text += ",\n  \"ops\": ";
  if (program.body()->empty()) {
    text += "[]";
  } else {
    text += "[";
    for (const Operation* op : *program.body()) {
      text += op == program.body()->front() ? "\n    " : ",\n    ";
      appendAtDepth(text, exporter.operation(*op), 2);
      sink.append(text);
      text.clear();
    }
    text += "\n  ]";
  }
  text += "\n}\n";
  sink.append(text);
  sink.flush();
  return !sink.failed() && std::fflush(out) == 0;
}

}  // namespace reshardctl
