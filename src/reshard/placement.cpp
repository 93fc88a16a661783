#include "reshard/placement.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace reshardctl {

namespace {

void checkMeshDim(int64_t meshDim, const ProcessMesh& mesh, const char* what) {
  if (meshDim < 0 || meshDim >= mesh.ndim())
    throw LayoutError(fmt::format("{} names mesh dim {} of a {}-D mesh", what, meshDim, mesh.ndim()));
}

// Paddle prints a Shard's split_factor (an interleaved split: a fused QKV
// weight) and a co-shard's shard_order only in `placements:`
// (Shard::to_string, CoShard::to_string, phi's placement_types.h): dims_mapping
// cannot say them, and a layout read from it alone would move the wrong data.
void refuseStridedShards(std::string_view placements) {
  for (std::string_view key : {"split_factor=", "shard_order="})
    if (placements.find(key) != std::string_view::npos)
      throw LayoutError(fmt::format("its placements name a {}: a layout dims_mapping does not describe, not modelled",
                                    key.substr(0, key.size() - 1)));
}

}  // namespace

Placements toPlacements(const TensorDistAttr& attr) {
  refuseStridedShards(attr.placements);
  Placements placements(static_cast<size_t>(attr.mesh.ndim()));
  for (size_t tensorDim = 0; tensorDim < attr.dimsMapping.size(); ++tensorDim) {
    const int64_t meshDim = attr.dimsMapping[tensorDim];
    if (meshDim == -1) continue;
    checkMeshDim(meshDim, attr.mesh, "dims_mapping");
    Placement& slot = placements[static_cast<size_t>(meshDim)];
    if (!slot.isReplicate())
      throw LayoutError(fmt::format("mesh dim {} splits two tensor dims", meshDim));
    slot = Placement::shard(static_cast<int64_t>(tensorDim));
  }
  for (const PartialDim& partial : attr.partials) {
    checkMeshDim(partial.meshDim, attr.mesh, "partial");
    Placement& slot = placements[static_cast<size_t>(partial.meshDim)];
    if (!slot.isReplicate())
      throw LayoutError(fmt::format("mesh dim {} is both split and partial", partial.meshDim));
    slot = Placement::partial(partial.reduce);
  }
  return placements;
}

Layout toLayout(const TensorDistAttr& attr) { return {attr.mesh, toPlacements(attr)}; }

TensorDistAttr groupLayout(const std::vector<int64_t>& ranks, size_t tensorRank, int64_t splitDim,
                           std::optional<ReduceType> partial) {
  TensorDistAttr dist;
  dist.mesh = ProcessMesh({static_cast<int64_t>(ranks.size())}, ranks);
  dist.dimsMapping.assign(tensorRank, -1);
  if (splitDim >= 0 && static_cast<size_t>(splitDim) < tensorRank) dist.dimsMapping[static_cast<size_t>(splitDim)] = 0;
  if (partial) dist.partials.push_back({0, *partial});
  return dist;
}

TensorDistAttr toDistAttr(const Layout& layout, int64_t tensorRank) {
  TensorDistAttr attr;
  attr.mesh = layout.mesh;
  attr.dimsMapping.assign(static_cast<size_t>(tensorRank), -1);
  for (size_t meshDim = 0; meshDim < layout.placements.size(); ++meshDim) {
    const Placement& placement = layout.placements[meshDim];
    if (placement.isShard())
      attr.dimsMapping[static_cast<size_t>(placement.dim)] = static_cast<int64_t>(meshDim);
    else if (placement.isPartial())
      attr.partials.push_back({static_cast<int64_t>(meshDim), placement.reduce});
  }
  return attr;
}

bool isRepresentable(const Placements& placements, int64_t tensorRank) {
  std::vector<bool> split(static_cast<size_t>(std::max<int64_t>(tensorRank, 0)), false);
  for (const Placement& placement : placements) {
    if (!placement.isShard()) continue;
    if (placement.dim < 0 || placement.dim >= tensorRank) return false;
    if (split[static_cast<size_t>(placement.dim)]) return false;
    split[static_cast<size_t>(placement.dim)] = true;
  }
  return true;
}

std::string placementText(const Placement& placement) {
  switch (placement.kind) {
    case Placement::Kind::Replicate: return "R";
    case Placement::Kind::Shard: return fmt::format("S({})", placement.dim);
    case Placement::Kind::Partial: return fmt::format("P({})", reduceTypeName(placement.reduce));
  }
  return "?";
}

std::string placementsText(const Placements& placements) {
  std::vector<std::string> parts;
  for (const Placement& placement : placements) parts.push_back(placementText(placement));
  return fmt::format("[{}]", fmt::join(parts, ","));
}

std::string meshText(const ProcessMesh& mesh) {
  if (!mesh.idsKnown) return fmt::format("mesh[{}]", fmt::join(mesh.shape, ","));
  return fmt::format("mesh[{}]({})", fmt::join(mesh.shape, ","), fmt::join(mesh.processIds, ","));
}

std::string layoutText(const Layout& layout) {
  return meshText(layout.mesh) + " " + placementsText(layout.placements);
}

}  // namespace reshardctl
