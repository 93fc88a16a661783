// How the views label a value: its name exactly as `print` numbers it
// (syntax/printer.h's ValueNames, one walk) and its type in placement
// notation, "4x16xf32 [S(1)]": the global shape, then what each mesh dim does
// (R, S(d), P(SUM)...; reshard/placement.h). Labels are cached per interned
// type, so labelling every value of a million-op program is cheap.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "ir/ir.h"
#include "syntax/printer.h"

namespace reshardctl {

class ValueLabels {
 public:
  explicit ValueLabels(const Program& program) : names_(program) {}

  std::string name(const Value* value) const { return names_.name(value); }
  // "4x16xf32 [S(1)]", "4x8xf32" (dense), "vec[4x8xf32 [R], 8xf32 [R]]",
  // any other type verbatim.
  const std::string& typeLabel(const Value* value);
  const std::string& typeLabel(const Type* type);

 private:
  std::string makeLabel(const Type& type);

  ValueNames names_;
  std::unordered_map<const Type*, std::string> labels_;
};

// "[S(1)]" for a layout, or its dims_mapping where no placement list can
// express it ("dims_mapping[0,0]").
std::string placementsLabel(const TensorDistAttr& dist);

}  // namespace reshardctl
