#include "program_text.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace differential {

namespace {

std::string joinInts(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

std::string partialsText(const DistView& dist, const char* separator) {
  std::string out;
  for (size_t i = 0; i < dist.partials.size(); ++i)
    out += (i ? "," : separator) + ("partial(" + std::to_string(dist.partials[i].first) + "," +
                                    std::string(reduceName(dist.partials[i].second)) + ")");
  return out;
}

// One placement per mesh dim: Shard(dim=k), Partial(reduce_type=R) or Replicate().
std::string placementsText(const DistView& dist) {
  std::vector<std::string> items(dist.mesh.shape.size(), "Replicate()");
  for (size_t dim = 0; dim < dist.dims.size(); ++dim)
    if (dist.dims[dim] >= 0) items[static_cast<size_t>(dist.dims[dim])] = "Shard(dim=" + std::to_string(dim) + ")";
  for (const auto& [meshDim, reduce] : dist.partials)
    items[static_cast<size_t>(meshDim)] = "Partial(reduce_type=" + std::string(reduceName(reduce)) + ")";
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

bool fromD(Gen gen) { return gen == Gen::D || gen == Gen::E; }

class Renderer {
 public:
  Renderer(const ProgramModel& program, const RenderOptions& options)
      : program_(program), options_(options), rendered_{{}, std::vector<size_t>(program.ops.size()),
                                                        std::vector<std::string>(program.values.size())} {
    nameValues();
  }

  Rendered run() {
    text_ = "{\n";
    line_ = 2;
    if (!program_.blocks[0].args.empty()) emit("^kw:" + joined(program_.blocks[0].args, false), 4);
    block(0, 4);
    text_ += "}\n";
    rendered_.text = std::move(text_);
    return std::move(rendered_);
  }

 private:
  // Paddle numbers results in print order and block arguments apart (%arg_N).
  void nameValues() {
    std::vector<int> results;
    int argument = 0;
    for (size_t k = 0; k < program_.blocks[0].args.size(); ++k)
      rendered_.valueName[static_cast<size_t>(program_.blocks[0].args[k])] = "%kwarg_" + program_.keywordNames[k];
    for (int op : opsInPrintOrder(program_)) {
      const OpModel& model = program_.ops[static_cast<size_t>(op)];
      results.insert(results.end(), model.results.begin(), model.results.end());
      for (int region : model.regions)
        for (int arg : program_.blocks[static_cast<size_t>(region)].args)
          rendered_.valueName[static_cast<size_t>(arg)] = "%arg_" + std::to_string(argument++);
    }
    std::vector<size_t> numbers(results.size());
    std::iota(numbers.begin(), numbers.end(), 0);
    std::mt19937_64 rng(options_.renameSeed);
    if (options_.renameValues) std::shuffle(numbers.begin(), numbers.end(), rng);
    // Renamed: numbers shuffled, which are not Paddle's numbering, so they
    // print as read (docs/format.md): the check compares up to names.
    for (size_t i = 0; i < results.size(); ++i)
      rendered_.valueName[static_cast<size_t>(results[i])] = "%" + std::to_string(numbers[i]);
  }

  const TensorType& typeOf(int value) const { return program_.values[static_cast<size_t>(value)].type; }

  std::string valueTypeText(int value) const {
    if (value < 0) return "<<NULL TYPE>>";
    const TensorType& type = typeOf(value);
    if (!type.dist) return typeText(type, nullptr, options_.gen, program_.placements);
    const DistView dist = viewOf(program_, *type.dist);
    return typeText(type, &dist, options_.gen, program_.placements);
  }

  std::string name(int value) const {
    return value < 0 ? "<<NULL VALUE>>" : rendered_.valueName[static_cast<size_t>(value)];
  }

  std::string joined(const std::vector<int>& values, bool types) const {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + (types ? valueTypeText(values[i]) : name(values[i]));
    return out;
  }

  std::string attributes(const OpModel& op) const {
    std::vector<std::pair<std::string, std::string>> entries;
    if (!op.dataName.empty()) entries.emplace_back("name", "\"" + op.dataName + "\"");
    if (op.dist) entries.emplace_back("op_dist_attr", opDistAttr(*op.dist));
    if (op.opRole && options_.gen != Gen::A) entries.emplace_back("op_role", opRoleText(*op.opRole, options_.gen));
    if (!op.outputName.empty()) entries.emplace_back("output_name", "\"" + op.outputName + "\"");
    if (!op.stopGradient.empty()) entries.emplace_back("stop_gradient", stopGradientText(op.stopGradient));
    return attributesText(std::move(entries));
  }

  std::string opDistAttr(const OpDist& dist) const {
    const Mesh& mesh = program_.meshes[static_cast<size_t>(dist.mesh)];
    std::vector<DistView> views;
    views.reserve(dist.operands.size() + dist.results.size());
    auto pointers = [&](const std::vector<Entry>& entries) {
      std::vector<const DistView*> out;
      for (const Entry& entry : entries) {
        if (entry.null) {
          out.push_back(nullptr);
          continue;
        }
        views.push_back(viewOf(program_, entry.dist));
        out.push_back(&views.back());
      }
      return out;
    };
    const std::vector<const DistView*> operands = pointers(dist.operands);
    const std::vector<const DistView*> results = pointers(dist.results);
    return opDistAttrText(MeshView{mesh.shape, mesh.ids, mesh.merged}, operands, results, dist.chunkId, options_.gen,
                          program_.placements);
  }

  std::string head(const OpModel& op) const {
    std::string out = "(" + joined(op.results, false) + ") = \"" + op.name + "\"";
    if (op.debugId) out += " [id:" + std::to_string(*op.debugId) + "]";
    return out;
  }

  void emit(const std::string& line, size_t width) {
    text_.append(width, ' ');
    text_ += line;
    text_ += '\n';
    ++line_;
  }

  void block(int index, size_t width) {
    for (int op : program_.blocks[static_cast<size_t>(index)].ops) this->op(op, width);
  }

  void op(int index, size_t width) {
    const OpModel& op = program_.ops[static_cast<size_t>(index)];
    rendered_.opLine[static_cast<size_t>(index)] = line_;
    switch (op.form) {
      case OpForm::Generic:
      case OpForm::Yield:
        emit(head(op) + " (" + joined(op.operands, false) + ") " + attributes(op) + " : (" + joined(op.operands, true) +
                 ") -> " + joined(op.results, true),
             width);
        break;
      case OpForm::If:
        emit(head(op) + " (" + joined(op.operands, false) + ") " + attributes(op) + " -> " + joined(op.results, true) +
                 " {",
             width);
        block(op.regions[0], width + 4);
        emit("} else {", width);
        block(op.regions[1], width + 4);
        emit("}", width);
        break;
      case OpForm::While: {
        const std::vector<int> inputs(op.operands.begin() + 1, op.operands.end());
        emit(head(op) + " (cond=" + name(op.operands.front()) + ", inputs=" + joined(inputs, false) + ") { ", width);
        emit("^" + joined(program_.blocks[static_cast<size_t>(op.regions[0])].args, false), width);
        block(op.regions[0], width + 4);
        emit("}", width);
        break;
      }
    }
  }

  const ProgramModel& program_;
  RenderOptions options_;
  Rendered rendered_;
  std::string text_;
  size_t line_ = 1;
};

}  // namespace

std::string distText(const DistView& dist, Gen gen, bool placements) {
  std::string out = "mesh_shape:" + joinInts(dist.mesh.shape);
  if (gen != Gen::A) out += ",process_ids:" + joinInts(dist.mesh.ids.value_or(std::vector<int64_t>{}));
  out += ",dims_mappings:" + joinInts(dist.dims);
  out += partialsText(dist, ", ");
  if (fromD(gen) && placements) out += ", placements:" + placementsText(dist);
  return out;
}

std::string typeText(const TensorType& type, const DistView* dist, Gen gen, bool placements) {
  std::string body;
  for (int64_t extent : type.shape) body += std::to_string(extent) + "x";
  body += type.dtype;
  if (!dist) return (gen == Gen::E ? "tensor<" : "builtin.tensor<") + body + ">";
  return "pd_dist.tensor<" + body + ", " + distText(*dist, gen, placements) + ">";
}

std::string entryText(const DistView* dist, const MeshView& opMesh, Gen gen, bool placements) {
  if (gen != Gen::A) return dist ? "{" + distText(*dist, gen, placements) + "}" : "{mesh_shape:[],process_ids:[],dims_mappings:[]}";
  if (!dist) return "{null}";
  std::string out = "{";
  if (!sameMesh(dist->mesh, opMesh)) out += "mesh_shape:" + joinInts(dist->mesh.shape) + ",";
  out += "dims_maping:" + joinInts(dist->dims);
  out += partialsText(*dist, ",");
  return out + "}";
}

std::string opDistAttrText(const MeshView& mesh, const std::vector<const DistView*>& operands,
                           const std::vector<const DistView*>& results, int64_t chunkId, Gen gen, bool placements) {
  std::string out = "{mesh:{shape:" + joinInts(mesh.shape) + ",process_ids:" +
                    joinInts(mesh.ids.value_or(std::vector<int64_t>{})) + "}";
  for (size_t i = 0; i < operands.size(); ++i)
    out += ",operand(" + std::to_string(i) + "):" + entryText(operands[i], mesh, gen, placements);
  for (size_t i = 0; i < results.size(); ++i)
    out += ",result(" + std::to_string(i) + "):" + entryText(results[i], mesh, gen, placements);
  if (fromD(gen)) out += ",chunk_id:" + std::to_string(chunkId);
  return out + "}";
}

std::string attributesText(std::vector<std::pair<std::string, std::string>> entries) {
  std::sort(entries.begin(), entries.end());
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) out += (i ? "," : "") + entries[i].first + ":" + entries[i].second;
  return out + "}";
}

std::string stopGradientText(const std::vector<bool>& flags) {
  std::string out = "[";
  for (size_t i = 0; i < flags.size(); ++i) out += std::string(i ? "," : "") + (flags[i] ? "true" : "false");
  return out + "]";
}

std::string opRoleText(int role, Gen gen) { return (gen == Gen::E ? "" : "(Int32)") + std::to_string(role); }

Rendered renderProgram(const ProgramModel& program, const RenderOptions& options) {
  return Renderer(program, options).run();
}

}  // namespace differential
