// What a `dist_op.reshard` the partition pass inserts is made of, all but
// its operand, as ReshardOp::Build makes it: op mesh = the input's mesh when
// both meshes are equal, else the merged 1-D mesh; result type = input type
// with the destination's distribution; attribute text in the program's
// generation (newOpAttributes). Made in two steps: the texts and dist attr
// (writeReshard), which read the program only, so threads can write many at
// once (passes/prepared_reshards.h), then kept by the program (keepReshard).
// A large program inserts many alike reshards: the pass builds each distinct
// one (ReshardKey) once.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"

namespace reshardctl::partition {

// What decides a reshard's parts: its input's distribution and type, the
// destination, and the two attributes copied from around it (the consumer's
// op_role, the input's stop_gradient). The distributions are compared by
// identity: the pass passes only kept ones (the program's, which never
// change), so equal keys always build equal parts.
struct ReshardKey {
  const TensorDistAttr* source;
  const TensorDistAttr* destination;
  const Type* inputType;
  std::string_view opRole;
  bool stopGradient;
  bool operator==(const ReshardKey&) const = default;
};
struct ReshardKeyHash {
  size_t operator()(const ReshardKey& k) const {
    std::hash<const void*> pointer;
    size_t h = pointer(k.source);
    h = h * 31 + pointer(k.destination);
    h = h * 31 + pointer(k.inputType);
    h = h * 31 + std::hash<std::string_view>()(k.opRole);
    return h * 2 + k.stopGradient;
  }
};

// Whether `value` must be resharded to be seen as `dst`: it has a layout and
// it is not `dst` (a null operand or a dense value never is).
inline bool layoutDiffers(const Value* value, const TensorDistAttr& dst) {
  return value && value->dist && !(*value->dist == dst);
}

// The key of a reshard of `input` to `dst` before `consumer`. `dst` must be
// kept by the program (an entry of a kept OpDistAttr, or keepTensorDistAttr's).
ReshardKey reshardKey(const Program& program, const Operation& consumer, const Value* input,
                      const TensorDistAttr& dst);

// A reshard's parts as text, not yet the program's.
struct ReshardText {
  std::string attributes;
  OpDistAttr distAttr;
  std::string resultType;
};

// The parts kept by the program: what the op points at.
struct ReshardParts {
  std::string_view attributes;           // interned in the program
  const OpDistAttr* distAttr = nullptr;  // kept by the program
  const Type* resultType = nullptr;
};

// The text of the reshard `key` names (of `input` to `dst`); nullopt when the
// merged mesh cannot be known (a mesh given only by its shape). Reads only.
std::optional<ReshardText> writeReshard(const Program& program, const ReshardKey& key, const Value* input,
                                        const TensorDistAttr& dst);

ReshardParts keepReshard(Program& program, ReshardText text);

// writeReshard then keepReshard; where the merged mesh cannot be known,
// nullopt and a diagnostic at `location`.
std::optional<ReshardParts> reshardParts(Program& program, const ReshardKey& key, const Value* input,
                                         const TensorDistAttr& dst, size_t location, DiagnosticEngine& diagnostics);

// The attributes of a new op: a reshard's (`input` its operand) or a
// builtin.combine's (`inputs` its operands, `opDistAttr` empty).
std::string newOpAttributes(const Program& program, std::string opDistAttr, const Value* input,
                            const std::vector<Value*>& inputs, std::string_view opRole);

// The consumer's op_role value text, copied to inserted ops in generations C-E.
std::string_view opRoleOf(const Program& program, const Operation& op);

}  // namespace reshardctl::partition
