#include "program_model.h"

#include <algorithm>
#include <array>

namespace differential {

std::string_view genName(Gen gen) {
  switch (gen) {
    case Gen::A: return "A";
    case Gen::C: return "C";
    case Gen::D: return "D";
    case Gen::E: return "E";
  }
  return "?";
}

std::string_view reduceName(Reduce reduce) {
  static constexpr std::array<std::string_view, 7> kNames = {"SUM", "MAX", "MIN", "PRODUCT", "AVG", "ANY", "ALL"};
  return kNames[static_cast<size_t>(reduce)];
}

bool sameMesh(const MeshView& a, const MeshView& b) {
  if (a.shape != b.shape || a.merged != b.merged) return false;
  return !a.ids || !b.ids || *a.ids == *b.ids;
}

bool sameLayout(const DistView& a, const DistView& b) {
  if (!sameMesh(a.mesh, b.mesh) || a.dims != b.dims) return false;
  auto sorted = [](std::vector<std::pair<int64_t, Reduce>> partials) {
    std::sort(partials.begin(), partials.end());
    return partials;
  };
  return sorted(a.partials) == sorted(b.partials);
}

std::vector<int> opsInPrintOrder(const ProgramModel& program) {
  std::vector<int> order;
  auto walk = [&](int block, auto&& self) -> void {
    for (int op : program.blocks[static_cast<size_t>(block)].ops) {
      order.push_back(op);
      for (int region : program.ops[static_cast<size_t>(op)].regions) self(region, self);
    }
  };
  walk(0, walk);
  return order;
}

DistView viewOf(const ProgramModel& program, const Dist& dist) {
  const Mesh& mesh = program.meshes[static_cast<size_t>(dist.mesh)];
  return DistView{MeshView{mesh.shape, mesh.ids, mesh.merged}, dist.dims, dist.partials};
}

}  // namespace differential
