#include "view/mesh_table.h"

#include <iterator>

#include "reshard/placement.h"
#include "support/op_names.h"

namespace reshardctl {

namespace {

// A reshard from one mesh to another runs on the two merged (Paddle's
// MergeMeshes), a mesh no other op runs on: it belongs to neither (pictures
// draw it between them). Generation-A types may not tell two meshes of one
// shape apart, so the op mesh decides: a reshard within a mesh runs on it.
bool isBetweenMeshes(const Operation& op) {
  const OpDistAttr* attr = op.distAttr();
  if (!attr || op.name() != kReshardOp || op.numOperands() != 1 || op.numResults() != 1) return false;
  const Value* in = op.operandValue(0);
  const Value* out = op.result(0);
  return in && in->dist && out->dist && !(attr->mesh == in->dist->mesh) && !(attr->mesh == out->dist->mesh);
}

}  // namespace

int MeshTable::RawMeshes::idOf(const void* attr, const ProcessMesh& mesh) {
  auto [byPointer, isNewAttr] = byAttr.try_emplace(attr, kNoMesh);
  if (!isNewAttr) return byPointer->second;
  auto [found, added] = byText.try_emplace(meshText(mesh), static_cast<int>(meshes.size()));
  if (added) meshes.push_back(mesh);
  return byPointer->second = found->second;
}

MeshTable::MeshTable(const OpIndex& ops) {
  RawMeshes raw;
  opMeshes_.reserve(ops.size());
  for (const Operation* op : ops.ops()) {
    int mesh = kNoMesh;
    if (isBetweenMeshes(*op)) {
      opMeshes_.push_back(kNoMesh);
      continue;
    }
    if (const OpDistAttr* attr = op->distAttr()) mesh = raw.idOf(attr, attr->mesh);
    for (size_t i = 0; mesh == kNoMesh && i < op->numResults(); ++i)
      if (const Value* value = op->result(i); value->dist) mesh = raw.idOf(value->dist, value->dist->mesh);
    opMeshes_.push_back(mesh);
  }
  resolve(raw);
}

// Maps each mesh known only by its shape to the one known mesh of that
// shape (when there is exactly one), then numbers what is left in order.
void MeshTable::resolve(const RawMeshes& raw) {
  const size_t count = raw.meshes.size();
  struct KnownOfShape {
    int mesh = kNoMesh;
    size_t count = 0;
  };
  std::unordered_map<std::string, KnownOfShape> knownByShape;
  for (size_t i = 0; i < count; ++i)
    if (raw.meshes[i].idsKnown) {
      KnownOfShape& known = knownByShape[meshText({raw.meshes[i].shape, {}, false})];
      known.mesh = static_cast<int>(i);
      ++known.count;
    }
  std::vector<int> target(count);
  for (size_t i = 0; i < count; ++i) {
    target[i] = static_cast<int>(i);
    if (raw.meshes[i].idsKnown) continue;
    auto found = knownByShape.find(meshText(raw.meshes[i]));
    if (found != knownByShape.end() && found->second.count == 1) target[i] = found->second.mesh;
  }
  std::vector<int> final(count, kNoMesh);
  for (size_t i = 0; i < count; ++i) {
    int& number = final[static_cast<size_t>(target[i])];
    if (number != kNoMesh) continue;
    number = static_cast<int>(texts_.size());
    texts_.push_back(meshText(raw.meshes[static_cast<size_t>(target[i])]));
  }
  for (int& mesh : opMeshes_)
    if (mesh != kNoMesh) mesh = final[static_cast<size_t>(target[static_cast<size_t>(mesh)])];
}

std::string_view meshColour(int mesh) {
  static constexpr std::string_view kPalette[] = {"#3b6ea5", "#3a8f5c", "#8e5ba8", "#b07a1f", "#2f8f9d", "#a34a6b"};
  if (mesh < 0) return "#8a9bb0";
  return kPalette[static_cast<size_t>(mesh) % std::size(kPalette)];
}

}  // namespace reshardctl
