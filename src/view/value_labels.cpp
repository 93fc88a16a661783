#include "view/value_labels.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reshard/placement.h"

namespace reshardctl {

namespace {
const std::string kNullType = "<<NULL TYPE>>";
const std::string kNoValue;
}  // namespace

std::string placementsLabel(const TensorDistAttr& dist) {
  try {
    return placementsText(toPlacements(dist));
  } catch (const LayoutError&) {
    return fmt::format("dims_mapping[{}]", fmt::join(dist.dimsMapping, ","));
  }
}

const std::string& ValueLabels::typeLabel(const Value* value) {
  return value ? typeLabel(value->type) : kNoValue;
}

const std::string& ValueLabels::typeLabel(const Type* type) {
  if (!type) return kNullType;
  auto found = labels_.find(type);
  if (found == labels_.end()) found = labels_.emplace(type, makeLabel(*type)).first;
  return found->second;
}

std::string ValueLabels::makeLabel(const Type& type) {
  switch (type.kind) {
    case TypeKind::DenseTensor: return std::string(type.shapeText);
    case TypeKind::DistTensor: return fmt::format("{} {}", type.shapeText, placementsLabel(type.dist));
    case TypeKind::Vector: {
      std::string text = "vec[";
      for (size_t i = 0; i < type.elements.size(); ++i) {
        if (i) text += ", ";
        text += typeLabel(type.elements[i]);
      }
      return text + "]";
    }
    case TypeKind::Other: break;
  }
  return std::string(type.text);
}

}  // namespace reshardctl
