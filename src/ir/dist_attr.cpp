#include "ir/dist_attr.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

namespace reshardctl {

namespace {
constexpr std::array<std::string_view, 7> kReduceNames = {"SUM", "MAX", "MIN", "PRODUCT",
                                                          "AVG", "ANY", "ALL"};

std::vector<PartialDim> sortedPartials(std::vector<PartialDim> partials) {
  std::sort(partials.begin(), partials.end(),
            [](const PartialDim& a, const PartialDim& b) { return a.meshDim < b.meshDim; });
  return partials;
}
}  // namespace

std::string_view reduceTypeName(ReduceType type) {
  return kReduceNames[static_cast<size_t>(type)];
}

std::optional<ReduceType> parseReduceType(std::string_view name) {
  for (size_t i = 0; i < kReduceNames.size(); ++i)
    if (kReduceNames[i] == name) return static_cast<ReduceType>(i);
  return std::nullopt;
}

int64_t ProcessMesh::size() const {
  // Saturates instead of overflowing: such a mesh is rejected for its ids anyway.
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  return n;
}

bool operator==(const ProcessMesh& a, const ProcessMesh& b) {
  if (a.shape != b.shape || a.dimNames != b.dimNames) return false;
  if (!a.idsKnown || !b.idsKnown) return true;
  return a.processIds == b.processIds;
}

ProcessMesh mergeMeshes(const ProcessMesh& a, const ProcessMesh& b) {
  if (a == b) return a.idsKnown ? a : b;
  ProcessMesh merged;
  merged.processIds = a.processIds;
  merged.processIds.insert(merged.processIds.end(), b.processIds.begin(), b.processIds.end());
  std::sort(merged.processIds.begin(), merged.processIds.end());
  merged.processIds.erase(std::unique(merged.processIds.begin(), merged.processIds.end()),
                          merged.processIds.end());
  merged.shape = {static_cast<int64_t>(merged.processIds.size())};
  merged.idsKnown = a.idsKnown && b.idsKnown;
  merged.dimNames = {"merged"};
  return merged;
}

bool TensorDistAttr::isShard() const {
  return std::any_of(dimsMapping.begin(), dimsMapping.end(), [](int64_t d) { return d >= 0; });
}

bool TensorDistAttr::isReplicated() const { return !isShard() && !isPartial(); }

std::optional<ReduceType> TensorDistAttr::partialOn(int64_t meshDim) const {
  for (const PartialDim& p : partials)
    if (p.meshDim == meshDim) return p.reduce;
  return std::nullopt;
}

// paddle/phi/core/distributed/auto_parallel/placement_types.h (to_string)
// and PlacementsAttrStorage::to_string (attribute_storage.h, PaddlePaddle
// @0ab6998): elements joined ", ".
std::string TensorDistAttr::derivedPlacements() const {
  std::vector<std::string> items(mesh.shape.size(), "Replicate()");
  for (size_t dim = 0; dim < dimsMapping.size(); ++dim)
    if (dimsMapping[dim] >= 0 && static_cast<size_t>(dimsMapping[dim]) < items.size())
      items[static_cast<size_t>(dimsMapping[dim])] = fmt::format("Shard(dim={})", dim);
  for (const PartialDim& p : partials)
    if (p.meshDim >= 0 && static_cast<size_t>(p.meshDim) < items.size())
      items[static_cast<size_t>(p.meshDim)] =
          fmt::format("Partial(reduce_type={})", reduceTypeName(p.reduce));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

bool operator==(const TensorDistAttr& a, const TensorDistAttr& b) {
  if (!(a.mesh == b.mesh) || a.dimsMapping != b.dimsMapping) return false;
  if (a.partials.size() != b.partials.size()) return false;
  return a.partials == b.partials || sortedPartials(a.partials) == sortedPartials(b.partials);
}

}  // namespace reshardctl
