// What the interpreter knows about every value while it runs: the serial
// tensor and each rank's piece, by process id through the world's dense
// numbering. Values are released after their last use, so a long program
// holds only the values still live.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "interp/tensor.h"
#include "ir/ir.h"
#include "reshard/mesh_coords.h"
#include "reshard/placement.h"

namespace reshardctl {

// Every process id the program's meshes name, sorted; a program with no mesh
// runs on one rank, 0.
class RankWorld {
 public:
  explicit RankWorld(const Program& program);
  size_t size() const { return ids_.size(); }
  int64_t processId(size_t index) const { return ids_[index]; }
  std::optional<size_t> indexOf(int64_t processId) const;
  std::vector<size_t> indicesOf(const ProcessMesh& mesh) const;

 private:
  std::vector<int64_t> ids_;
};

struct ValueState {
  bool known = false;  // the serial value was computed (else: not simulated)
  Tensor serial;
  std::vector<std::optional<Tensor>> ranks;  // by world index; empty = the rank holds no piece
};

class ValueStore {
 public:
  ValueStore(size_t valueCount, size_t worldSize) : states_(valueCount), worldSize_(worldSize) {}
  ValueState& at(const Value* value);
  void release(const Value* value) { states_[value->id] = ValueState{}; }

 private:
  std::vector<ValueState> states_;
  size_t worldSize_;
};

// Layouts of the program's dist attrs, converted once (the program shares one
// TensorDistAttr between equal attrs, so there are few).
class LayoutCache {
 public:
  const Layout& of(const TensorDistAttr& dist);  // throws LayoutError
  // The coordinate of `processId` on the mesh of `dist`'s layout, or nullopt
  // when it is not there: the attr's ids indexed once (O(ranks)), then O(1) a
  // question. Every rank asks of every op (a search of the mesh made that
  // O(ranks^2): a 16-dim mesh of 65,536 ranks spent 51 s there).
  std::optional<MeshCoord> coordOf(const TensorDistAttr& dist, int64_t processId);  // throws LayoutError

 private:
  struct Entry {
    Layout layout;
    std::optional<std::unordered_map<int64_t, int64_t>> positions;  // process id -> mesh position, once asked
  };
  std::unordered_map<const TensorDistAttr*, Entry> layouts_;
};

}  // namespace reshardctl
