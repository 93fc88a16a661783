// The distinct process meshes of a program, numbered in order of first
// appearance, and the mesh each op runs on: its op_dist_attr's mesh, else
// the mesh of its first distributed result; an op with neither, and a
// reshard from one mesh to another, runs on no mesh. Generation-A types name a mesh by its shape only: such a mesh is the
// program's one mesh of that shape with known ids when there is exactly one.
// The dot view draws one cluster per mesh; the page sums per mesh.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/dist_attr.h"
#include "view/op_index.h"

namespace reshardctl {

class MeshTable {
 public:
  static constexpr int kNoMesh = -1;

  explicit MeshTable(const OpIndex& ops);

  size_t size() const { return texts_.size(); }
  const std::string& text(int mesh) const { return texts_[static_cast<size_t>(mesh)]; }  // "mesh[2](0,1)"
  int meshOfOp(size_t opIndex) const { return opMeshes_[opIndex]; }

 private:
  // Meshes as first read, before meshes known by shape alone are resolved.
  struct RawMeshes {
    std::vector<ProcessMesh> meshes;
    std::unordered_map<std::string, int> byText;
    std::unordered_map<const void*, int> byAttr;  // dist attrs are shared between equal attrs
    int idOf(const void* attr, const ProcessMesh& mesh);
  };
  void resolve(const RawMeshes& raw);

  std::vector<std::string> texts_;
  std::vector<int> opMeshes_;
};

// The colour the pictures give a mesh (a small qualitative palette).
std::string_view meshColour(int mesh);

}  // namespace reshardctl
