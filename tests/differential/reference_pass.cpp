#include "reference_pass.h"

#include <algorithm>

#include "program_text.h"

namespace differential {

namespace {

MeshView meshView(const ProgramModel& program, int mesh) {
  const Mesh& m = program.meshes[static_cast<size_t>(mesh)];
  // Text never names dim names: a mesh read back is a user's mesh.
  return MeshView{m.shape, m.ids, false};
}

// Generation A prints an entry's mesh_shape only when it is not the op's mesh
// (dim names included, so never for a merged op mesh); the reader takes the
// op mesh's ids for an entry without one, and knows only the shape otherwise.
DistView visibleEntry(const ProgramModel& program, const Entry& entry, int opMesh, Gen gen) {
  DistView view = viewOf(program, entry.dist);
  view.mesh.merged = false;
  if (gen != Gen::A) return view;
  if (program.meshes[static_cast<size_t>(entry.dist.mesh)] == program.meshes[static_cast<size_t>(opMesh)])
    return view;
  view.mesh.ids.reset();
  return view;
}

// A value's stop_gradient: its defining op's `stop_gradient` array at the
// result's index, true when there is none.
bool stopGradient(const ProgramModel& program, int value) {
  const ValueModel& model = program.values[static_cast<size_t>(value)];
  if (model.kind != ValueKind::OpResult) return true;
  const OpModel& op = program.ops[static_cast<size_t>(model.op)];
  if (op.form == OpForm::While || static_cast<size_t>(model.index) >= op.stopGradient.size()) return true;
  return op.stopGradient[static_cast<size_t>(model.index)];
}

// Destinations `plan` refuses (README, plan): an ANY/ALL partial below one of
// another type unless the tensor is bool; an AVG below a MAX/MIN for integers.
bool unmakeable(const DistView& dist, const std::string& dtype) {
  const bool integer = dtype == "i32" || dtype == "i64";
  for (const auto& [low, lowType] : dist.partials)
    for (const auto& [high, highType] : dist.partials) {
      if (low >= high) continue;
      if (isLogical(lowType) && highType != lowType && dtype != "b") return true;
      if (integer && lowType == Reduce::Avg && (highType == Reduce::Max || highType == Reduce::Min)) return true;
    }
  return false;
}

// The new reshard's op mesh (docs/passes.md): the source mesh when both are
// the same mesh, else the merged 1-D mesh of the sorted union of ids.
void chooseOpMesh(ExpectedReshard& reshard) {
  if (sameMesh(reshard.src.mesh, reshard.dst.mesh)) {
    reshard.opMesh = reshard.src.mesh.ids ? reshard.src.mesh : reshard.dst.mesh;
    reshard.buildable = reshard.opMesh.ids.has_value();
    return;
  }
  reshard.buildable = reshard.src.mesh.ids && reshard.dst.mesh.ids;
  if (!reshard.buildable) return;
  std::vector<int64_t> ids = *reshard.src.mesh.ids;
  ids.insert(ids.end(), reshard.dst.mesh.ids->begin(), reshard.dst.mesh.ids->end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  reshard.opMesh = MeshView{{static_cast<int64_t>(ids.size())}, ids, true};
}

class Reference {
 public:
  Reference(const ProgramModel& program, Gen gen) : program_(program), gen_(gen) {}

  Expectation run() {
    block(0);
    return std::move(expectation_);
  }

 private:
  void block(int index) {
    for (int op : program_.blocks[static_cast<size_t>(index)].ops) {
      for (int region : program_.ops[static_cast<size_t>(op)].regions) block(region);
      operands(op);
    }
  }

  // zip(operands, entries): extra operands or entries are left alone.
  void operands(int index) {
    const OpModel& op = program_.ops[static_cast<size_t>(index)];
    if (!op.dist) return;
    for (size_t i = 0; i < op.operands.size() && i < op.dist->operands.size(); ++i) {
      const Entry& entry = op.dist->operands[i];
      ExpectedReshard reshard;
      if (entry.null || !visibleLayout(program_, op.operands[i], gen_, &reshard.src)) continue;
      reshard.dst = visibleEntry(program_, entry, op.dist->mesh, gen_);
      if (sameLayout(reshard.src, reshard.dst)) continue;
      reshard.op = index;
      reshard.operand = i;
      reshard.value = op.operands[i];
      chooseOpMesh(reshard);
      describe(reshard, op);
      expectation_.reshards.push_back(std::move(reshard));
    }
  }

  void describe(ExpectedReshard& reshard, const OpModel& consumer) const {
    const TensorType& type = program_.values[static_cast<size_t>(reshard.value)].type;
    reshard.plannable = !unmakeable(reshard.dst, type.dtype);
    reshard.resultType = typeText(type, &reshard.dst, gen_, program_.placements);
    reshard.srcText = distText(reshard.src, gen_, program_.placements);
    reshard.dstText = distText(reshard.dst, gen_, program_.placements);
    if (!reshard.buildable) return;
    // Generation A's Build gives a reshard only op_dist_attr; later ones add
    // stop_gradient (PassStopGradientsDefaultly) and the consumer's op_role.
    std::vector<std::pair<std::string, std::string>> attributes{
        {"op_dist_attr",
         opDistAttrText(reshard.opMesh, {&reshard.src}, {&reshard.dst}, -1, gen_, program_.placements)}};
    if (gen_ != Gen::A) {
      if (consumer.opRole) attributes.emplace_back("op_role", opRoleText(*consumer.opRole, gen_));
      attributes.emplace_back("stop_gradient", stopGradientText({stopGradient(program_, reshard.value)}));
    }
    reshard.attributes = attributesText(std::move(attributes));
  }

  const ProgramModel& program_;
  Gen gen_;
  Expectation expectation_;
};

}  // namespace

bool Expectation::applies() const {
  return std::all_of(reshards.begin(), reshards.end(), [](const ExpectedReshard& r) { return r.buildable; });
}

bool visibleLayout(const ProgramModel& program, int value, Gen gen, DistView* out) {
  if (value < 0) return false;
  const ValueModel& model = program.values[static_cast<size_t>(value)];
  if (!model.type.dist) return false;
  *out = viewOf(program, *model.type.dist);
  out->mesh.merged = false;
  if (gen != Gen::A) return true;
  // Generation A: the type has no ids. They come from the defining op's mesh
  // (its result entry's, when that names its own mesh) when the shapes agree.
  const std::vector<int64_t> shape = out->mesh.shape;
  out->mesh.ids.reset();
  if (model.kind != ValueKind::OpResult) return true;
  const OpModel& op = program.ops[static_cast<size_t>(model.op)];
  if (!op.dist) return true;
  MeshView mesh = meshView(program, op.dist->mesh);
  const size_t index = static_cast<size_t>(model.index);
  if (index < op.dist->results.size() && !op.dist->results[index].null)
    mesh = visibleEntry(program, op.dist->results[index], op.dist->mesh, gen).mesh;
  if (mesh.ids && mesh.shape == shape) out->mesh.ids = mesh.ids;
  return true;
}

Expectation referencePass(const ProgramModel& program, Gen gen) { return Reference(program, gen).run(); }

}  // namespace differential
