#include "lower/kept_dist_attrs.h"

#include "support/text_hash_table.h"

namespace reshardctl {

namespace {

bool identical(const ProcessMesh& a, const ProcessMesh& b) {
  return a.shape == b.shape && a.processIds == b.processIds && a.idsKnown == b.idsKnown && a.dimNames == b.dimNames;
}

bool identical(const TensorDistAttr& a, const TensorDistAttr& b) {
  return identical(a.mesh, b.mesh) && a.dimsMapping == b.dimsMapping && a.partials == b.partials &&
         a.placements == b.placements;
}

bool identical(const std::vector<TensorDistAttr>& a, const std::vector<TensorDistAttr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!identical(a[i], b[i])) return false;
  return true;
}

bool identical(const std::vector<DistEntry>& a, const std::vector<DistEntry>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].textOffset != b[i].textOffset || !identical(a[i].tensor, b[i].tensor) ||
        !identical(a[i].list, b[i].list))
      return false;
  return true;
}

bool identical(const OpDistAttr& a, const OpDistAttr& b) {
  return identical(a.mesh, b.mesh) && a.chunkId == b.chunkId && identical(a.operands, b.operands) &&
         identical(a.results, b.results);
}

// The fields that tell layouts apart, mixed into one word (equal layouts,
// equal words; identical() settles the rest).
uint64_t hashOf(const TensorDistAttr& attr) {
  uint64_t h = hashText(attr.placements);
  const auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 0x9e3779b97f4a7c15ull; };
  for (int64_t v : attr.mesh.shape) mix(v);
  mix(-2);
  for (int64_t v : attr.mesh.processIds) mix(v);
  mix(-3);
  for (int64_t v : attr.dimsMapping) mix(v);
  for (const PartialDim& p : attr.partials) mix(p.meshDim * 8 + static_cast<int64_t>(p.reduce));
  return h;
}

template <typename Attr>
const Attr* findOrKeep(std::unordered_multimap<uint64_t, const Attr*>& kept, uint64_t hash, Attr attr,
                       const Attr* (Program::*keepIn)(Attr), Program& program) {
  for (auto [it, end] = kept.equal_range(hash); it != end; ++it)
    if (identical(*it->second, attr)) return it->second;
  const Attr* added = (program.*keepIn)(std::move(attr));
  kept.emplace(hash, added);
  return added;
}

}  // namespace

const OpDistAttr* KeptDistAttrs::keep(OpDistAttr attr, std::string_view text) {
  return findOrKeep(ops_, hashText(text), std::move(attr), &Program::keepOpDistAttr, program_);
}

const TensorDistAttr* KeptDistAttrs::keep(TensorDistAttr attr) {
  return findOrKeep(tensors_, hashOf(attr), std::move(attr), &Program::keepTensorDistAttr, program_);
}

}  // namespace reshardctl
