// The dist attrs one lowering keeps, each distinct one once. A reshard's
// functions build an op_dist_attr for every op they emit and a layout for
// every result, and a program's reshards repeat a few hundred of them: kept
// one per op, they were ~1.3 KB per lowered reshard (28 MB of the 42 MB
// varied 100k-op bench program's 82 MB peak for `lower --rank 0`). Equal
// means identical in every field (meshes with their dim names and ids,
// partials in order, placements text), so an op pointing at a shared copy
// reads exactly what its own would hold. Work: one hash and, on a hit, one
// comparison per attr kept.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "ir/dist_attr.h"
#include "ir/ir.h"

namespace reshardctl {

class KeptDistAttrs {
 public:
  explicit KeptDistAttrs(Program& program) : program_(program) {}

  // `text`: the attr as written (writeOpDistAttr), the key it is found by.
  const OpDistAttr* keep(OpDistAttr attr, std::string_view text);
  const TensorDistAttr* keep(TensorDistAttr attr);

 private:
  Program& program_;
  std::unordered_multimap<uint64_t, const OpDistAttr*> ops_;
  std::unordered_multimap<uint64_t, const TensorDistAttr*> tensors_;
};

}  // namespace reshardctl
