#include "report/json_export.h"

#include <unordered_map>
#include <utility>

#include "ir/dist_attr.h"
#include "report/json_writer.h"
#include "syntax/attribute_dictionary.h"
#include "syntax/printer.h"

namespace reshardctl {

namespace {

// Bumped when the shape changes incompatibly (schema/program.schema.json).
constexpr int kFormatVersion = 1;

// Output is handed to the stream in blocks about this large.
constexpr size_t kDrainAt = size_t{1} << 20;

void integers(JsonWriter& w, const std::vector<int64_t>& values) {
  w.beginArray();
  for (int64_t value : values) w.integer(value);
  w.endArray();
}

void mesh(JsonWriter& w, const ProcessMesh& m) {
  w.beginObject();
  w.key("shape");
  integers(w, m.shape);
  w.key("process_ids");
  if (m.idsKnown) integers(w, m.processIds); else w.null();
  w.endObject();
}

void tensorDist(JsonWriter& w, const TensorDistAttr& dist) {
  w.beginObject();
  w.key("mesh");
  mesh(w, dist.mesh);
  w.key("dims_mapping");
  integers(w, dist.dimsMapping);
  w.key("partial");
  w.beginArray();
  for (const PartialDim& p : dist.partials) {
    w.beginObject();
    w.key("mesh_dim");
    w.integer(p.meshDim);
    w.key("reduce");
    w.string(reduceTypeName(p.reduce));
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void entry(JsonWriter& w, const DistEntry& e) {
  switch (e.kind) {
    case DistEntry::Kind::Null: w.null(); return;
    case DistEntry::Kind::Tensor: tensorDist(w, e.tensor); return;
    case DistEntry::Kind::List:
      w.beginArray();
      for (const TensorDistAttr& dist : e.list) tensorDist(w, dist);
      w.endArray();
      return;
  }
  w.null();
}

void opDist(JsonWriter& w, const OpDistAttr& attr) {
  w.beginObject();
  w.key("mesh");
  mesh(w, attr.mesh);
  w.key("operands");
  w.beginArray();
  for (const DistEntry& e : attr.operands) entry(w, e);
  w.endArray();
  w.key("results");
  w.beginArray();
  for (const DistEntry& e : attr.results) entry(w, e);
  w.endArray();
  w.key("chunk_id");
  if (attr.chunkId) w.integer(*attr.chunkId); else w.null();
  w.endObject();
}

// The document, written op by op; `drain` takes what is ready after each
// top-level op.
class Exporter {
 public:
  Exporter(const Program& program, const SourceFile* source, std::string& out)
      : names_(program), source_(source), w_(out) {}

  template <typename Drain>
  void document(const Program& program, Drain&& drain) {
    w_.beginObject();
    w_.key("format");
    w_.string("reshardctl-program");
    w_.key("version");
    w_.integer(kFormatVersion);
    w_.key("source");
    if (source_) w_.string(source_->name()); else w_.null();
    w_.key("arguments");
    arguments(*program.body());
    w_.key("ops");
    w_.beginArray();
    for (const Operation* op : *program.body()) {
      operation(*op);
      drain();
    }
    w_.endArray();
    w_.endObject();
  }

 private:
  // A value as it is printed, with its type and, when distributed, how.
  void value(const Value* v) {
    w_.beginObject();
    w_.key("name");
    if (v) w_.string(names_.name(v)); else w_.null();
    w_.key("type");
    if (v && v->type) w_.string(v->type->text); else w_.null();
    w_.key("dist");
    if (v && v->dist) tensorDist(w_, *v->dist); else w_.null();
    w_.endObject();
  }

  void arguments(const Block& block) {
    w_.beginArray();
    for (const Value* argument : block.arguments()) value(argument);
    w_.endArray();
  }

  void block(const Block& b) {
    w_.beginObject();
    w_.key("arguments");
    arguments(b);
    w_.key("ops");
    w_.beginArray();
    for (const Operation* op : b) operation(*op);
    w_.endArray();
    w_.endObject();
  }

  void line(const Operation& op) {
    // Ops made by a pass have no place in the source (location 0 is the
    // program's opening brace, never an op).
    if (!source_ || op.location() == 0 || op.location() >= source_->text().size()) {
      w_.null();
      return;
    }
    w_.integer(static_cast<int64_t>(source_->lineCol(op.location()).line));
  }

  // Keys as a JSON object keeps them: a repeated key keeps its first place
  // and takes the last value.
  void attributes(const Operation& op) {
    attributes_.clear();
    for (const AttributeEntry& e : splitAttributes(op.attributes())) {
      auto same = std::find_if(attributes_.begin(), attributes_.end(),
                               [&](const AttributeEntry& seen) { return seen.key == e.key; });
      if (same == attributes_.end()) attributes_.push_back(e); else same->value = e.value;
    }
    w_.beginObject();
    for (const AttributeEntry& e : attributes_) {
      w_.key(e.key);
      w_.string(e.value);
    }
    w_.endObject();
  }

  void operation(const Operation& op) {
    w_.beginObject();
    w_.key("name");
    w_.string(op.name());
    w_.key("line");
    line(op);
    w_.key("results");
    w_.beginArray();
    for (size_t i = 0; i < op.numResults(); ++i) value(op.result(i));
    w_.endArray();
    w_.key("operands");
    w_.beginArray();
    for (size_t i = 0; i < op.numOperands(); ++i) value(op.operandValue(i));
    w_.endArray();
    w_.key("attributes");
    attributes(op);
    w_.key("dist_attr");
    if (op.distAttr()) opDist(w_, *op.distAttr()); else w_.null();
    w_.key("regions");
    w_.beginArray();
    for (const Block* region : op.regions()) block(*region);
    w_.endArray();
    w_.endObject();
  }

  ValueNames names_;
  const SourceFile* source_;
  JsonWriter w_;
  std::vector<AttributeEntry> attributes_;  // reused from op to op
};

}  // namespace

bool writeProgramJson(const Program& program, const SourceFile* source, OutputSink& out) {
  std::string text;
  Exporter(program, source, text).document(program, [&] {
    if (text.size() < kDrainAt) return;
    out.write(text);
    text.clear();
  });
  text += '\n';
  out.write(text);
  return out.flush();
}

std::string programJsonText(const Program& program, const SourceFile* source) {
  std::string text;
  Exporter(program, source, text).document(program, [] {});
  return text + '\n';
}

nlohmann::ordered_json programToJson(const Program& program, const SourceFile* source) {
  return nlohmann::ordered_json::parse(programJsonText(program, source));
}

namespace {

// What `write` writes with a JsonWriter, as a json value.
template <typename Write>
nlohmann::ordered_json asJson(Write&& write) {
  std::string text;
  JsonWriter w(text);
  write(w);
  return nlohmann::ordered_json::parse(text);
}

}  // namespace

nlohmann::ordered_json meshToJson(const ProcessMesh& m) {
  return asJson([&](JsonWriter& w) { mesh(w, m); });
}

nlohmann::ordered_json tensorDistToJson(const TensorDistAttr& dist) {
  return asJson([&](JsonWriter& w) { tensorDist(w, dist); });
}

nlohmann::ordered_json opDistToJson(const OpDistAttr& attr) {
  return asJson([&](JsonWriter& w) { opDist(w, attr); });
}

std::string dumpJson(const nlohmann::ordered_json& value) {
  return value.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace reshardctl
