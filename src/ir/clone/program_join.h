// Programs parsed from consecutive chunks of one text's top-level ops
// (syntax/parallel_parse.h) joined into the first, as if one parse had read
// them all: each later part's ops appended to the body in order, its values
// numbered on (ids are creation order), its types made the first program's
// (types compare by pointer), its storage kept alive by the first. Uses
// between parts are the caller's to link, in the order the serial parse
// would have (Operand::set puts a use at the head of its value's list).
#pragma once

#include <memory>
#include <unordered_map>

#include "ir/ir.h"

namespace reshardctl {

class ProgramJoiner {
 public:
  explicit ProgramJoiner(Program& whole) : whole_(whole) {}

  // A part's dist attrs → equal ones the joined program holds already: an
  // op's op_dist_attr read from the same text, a result's dist with the same
  // type and mesh (generation A's ids filled in).
  struct SameDists {
    std::unordered_map<const OpDistAttr*, const OpDistAttr*> ofOps;
    std::unordered_map<const TensorDistAttr*, const TensorDistAttr*> ofValues;
  };

  // Appends `part` (parsed from the text right after what `whole` holds).
  // Its ops and values whose dist attrs `same` names point at the earlier
  // equal ones, as one parse shares one per text (the partition pass's memo
  // of reshards is keyed by their addresses).
  void append(std::unique_ptr<Program> part, const SameDists& same = {});
  // The type of the last appended part's `type` in the joined program.
  const Type* joinedType(const Type* type) const;

 private:
  void retypeAndRenumber(Block& block, uint32_t idOffset, const SameDists& same);
  void retype(Value& value, uint32_t idOffset, const SameDists& same) const;

  Program& whole_;
  std::unordered_map<const Type*, const Type*> types_;  // the last part's
};

}  // namespace reshardctl
