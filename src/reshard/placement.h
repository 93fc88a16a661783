// The planner's view of a layout: what each mesh dim does to a tensor
// (DTensor-style placements), next to Paddle's view (what each tensor dim is split
// over). Paddle's dims_mapping lets a tensor dim be split over at most one mesh
// dim, so every layout here obeys that too: the two views convert both ways.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/dist_attr.h"

namespace reshardctl {

// What one mesh dim does: keep the whole tensor, split tensor dim `dim`, or hold
// partial values that reduce (over this mesh dim) to the real ones.
struct Placement {
  enum class Kind : uint8_t { Replicate, Shard, Partial };
  Kind kind = Kind::Replicate;
  int64_t dim = -1;                    // Shard only
  ReduceType reduce = ReduceType::Sum;  // Partial only

  static Placement replicate() { return {}; }
  static Placement shard(int64_t tensorDim) { return {Kind::Shard, tensorDim, ReduceType::Sum}; }
  static Placement partial(ReduceType type) { return {Kind::Partial, -1, type}; }

  bool isReplicate() const { return kind == Kind::Replicate; }
  bool isShard() const { return kind == Kind::Shard; }
  bool isPartial() const { return kind == Kind::Partial; }

  friend bool operator==(const Placement&, const Placement&) = default;
};

// One placement per mesh dim.
using Placements = std::vector<Placement>;

// A tensor layout: the mesh and what each of its dims does.
struct Layout {
  ProcessMesh mesh;
  Placements placements;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// Raised for dist attrs no placement list can express (a mesh dim that both
// splits and is partial, two tensor dims on one mesh dim, a dim out of range,
// a strided or co-sharded Shard).
class LayoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Placements toPlacements(const TensorDistAttr& attr);  // throws LayoutError
Layout toLayout(const TensorDistAttr& attr);          // throws LayoutError
// Partials are listed in mesh-dim order.
TensorDistAttr toDistAttr(const Layout& layout, int64_t tensorRank);
// A layout on the 1-D mesh of `ranks` (a communicator's group): tensor dim
// `splitDim` split over it (-1: none), partial by `partial` when given.
TensorDistAttr groupLayout(const std::vector<int64_t>& ranks, size_t tensorRank, int64_t splitDim,
                           std::optional<ReduceType> partial = std::nullopt);

// Paddle can express the layout: each tensor dim split by at most one mesh dim,
// every split dim below tensorRank.
bool isRepresentable(const Placements& placements, int64_t tensorRank);

std::string placementText(const Placement& placement);     // "R", "S(1)", "P(SUM)"
std::string placementsText(const Placements& placements);  // "[S(0),R]"
std::string meshText(const ProcessMesh& mesh);            // "mesh[2,2](0,1,2,3)", "mesh[2]" (ids unknown)
std::string layoutText(const Layout& layout);              // "mesh[2,2](0,1,2,3) [S(0),R]"

}  // namespace reshardctl
