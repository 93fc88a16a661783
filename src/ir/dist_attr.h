// The distribution model shared by the pass, the planner and the executors:
// a process mesh, and how a tensor is laid out over it (Paddle's
// TensorDistAttribute). Text forms live in dist_attr_text.h; this file is pure data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace reshardctl {

// Paddle's ReduceType enum, in its order (kRedSum ... kRedAll).
enum class ReduceType : uint8_t { Sum, Max, Min, Product, Avg, Any, All };

std::string_view reduceTypeName(ReduceType type);  // "SUM", "MAX", ...
std::optional<ReduceType> parseReduceType(std::string_view name);

// A row-major grid of process ids. In generation-A dumps only an op's `mesh:`
// carries process ids; a mesh read from a type or an entry that names only
// `mesh_shape:` has unknown ids (idsKnown == false).
struct ProcessMesh {
  std::vector<int64_t> shape;
  std::vector<int64_t> processIds;  // empty when !idsKnown
  bool idsKnown = true;
  // Paddle's dim_names. No dump prints them, so every mesh read from text has
  // none here and meshes of one program are taken to share their names; only
  // meshes this tool makes carry names (MergeMeshes' "merged").
  std::vector<std::string> dimNames;

  ProcessMesh() = default;
  ProcessMesh(std::vector<int64_t> meshShape, std::vector<int64_t> ids, bool idsAreKnown = true,
              std::vector<std::string> names = {})
      : shape(std::move(meshShape)), processIds(std::move(ids)), idsKnown(idsAreKnown),
        dimNames(std::move(names)) {}

  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t size() const;  // product of shape (1 for a 0-D mesh)

  // Paddle's ProcessMeshAttribute equality (ProcessMeshAttrStorage::operator==
  // in paddle/fluid/pir/dialect/distributed/ir/attribute_storage.h): shape,
  // process ids and dim names. Ids are compared only when both sides know
  // them: a mesh known only by its shape matches any mesh of that shape (a
  // text-only tool cannot do better).
  friend bool operator==(const ProcessMesh& a, const ProcessMesh& b);
};

// Paddle's MergeMeshes (paddle/fluid/pir/dialect/distributed/ir/dist_tools.cc,
// called by ReshardOp::Build in dist_op.cc): equal meshes merge to
// themselves; otherwise the sorted union of both meshes' ids as a 1-D mesh
// whose one dim is named "merged" -- so it never equals either side's mesh,
// even one with the same shape and ids, and the entries of a reshard between
// two meshes both print their own mesh (see writeOpDistAttr).
ProcessMesh mergeMeshes(const ProcessMesh& a, const ProcessMesh& b);

struct PartialDim {
  int64_t meshDim = 0;
  ReduceType reduce = ReduceType::Sum;
  friend bool operator==(const PartialDim&, const PartialDim&) = default;
};

// How one tensor value is distributed.
struct TensorDistAttr {
  ProcessMesh mesh;
  // One entry per tensor dim: the mesh dim it is split over, or -1 (replicated).
  std::vector<int64_t> dimsMapping;
  // Mesh dims over which the value is a partial result, in printed order
  // (Paddle prints a hash map: the order is kept, equality ignores it).
  std::vector<PartialDim> partials;
  // Generation D/E `placements:` as printed (`[Shard(dim=0), Replicate()]`),
  // empty when absent. Kept for writing only: Paddle derives placements from
  // dims_mapping and partial status, so equality ignores them.
  std::string placements;

  bool isPartial() const { return !partials.empty(); }
  bool isShard() const;       // some tensor dim is split
  bool isReplicated() const;  // neither split nor partial
  std::optional<ReduceType> partialOn(int64_t meshDim) const;

  // Paddle's placements text for this layout: one placement per mesh dim
  // (cvt_dim_map_to_placements), e.g. `[Shard(dim=0), Replicate()]`.
  std::string derivedPlacements() const;

  // Paddle's storage equality: mesh, dims_mapping and partial status.
  friend bool operator==(const TensorDistAttr& a, const TensorDistAttr& b);
};

// One `operand(i)` / `result(i)` entry of an op_dist_attr: missing (`{null}`,
// or the generation-C empty entry), one tensor, or a tensor list (an array).
struct DistEntry {
  enum class Kind : uint8_t { Null, Tensor, List };
  Kind kind = Kind::Null;
  TensorDistAttr tensor;              // Kind::Tensor
  std::vector<TensorDistAttr> list;   // Kind::List
  uint32_t textOffset = 0;  // where the entry starts, from the op_dist_attr value's start

  bool isNull() const { return kind == Kind::Null; }
};

// An op's `op_dist_attr`: the op mesh plus one entry per operand and result.
// Generation D's chunk_id is kept when present.
struct OpDistAttr {
  ProcessMesh mesh;
  std::vector<DistEntry> operands;
  std::vector<DistEntry> results;
  std::optional<int64_t> chunkId;
};

}  // namespace reshardctl
