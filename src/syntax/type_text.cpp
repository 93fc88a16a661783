#include "syntax/type_text.h"

#include <memory>
#include <string>

#include <fmt/format.h>

#include "ir/diagnostics.h"
#include "support/text.h"

namespace reshardctl {

namespace {

constexpr std::string_view kNullType = "<<NULL TYPE>>";

TypeKind tensorKind(std::string_view name) {
  if (name == "pd_dist.tensor") return TypeKind::DistTensor;
  if (name == "builtin.tensor" || name == "pd_op.tensor" || name == "tensor")
    return TypeKind::DenseTensor;
  return TypeKind::Other;
}

// Splits `a,b<c,d>,e` at the commas outside brackets.
std::vector<std::string_view> splitTopLevel(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '<' || c == '[' || c == '(' || c == '{') ++depth;
    if (c == '>' || c == ']' || c == ')' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

// Interprets a text not read before and adds it to `types`.
const Type* readNewType(TypeTable& types, std::string_view text, size_t offset,
                        TypeTextEvidence* evidence) {
  std::unique_ptr<Type> type = types.start(text);
  std::string_view stable = type->text;
  if (stable.starts_with("vec[") && stable.ends_with("]")) {
    type->kind = TypeKind::Vector;
    std::string_view inner = stable.substr(4, stable.size() - 5);
    size_t position = offset + 4;  // where `inner`, and so its first element, starts
    if (!trim(inner).empty()) {
      for (std::string_view part : splitTopLevel(inner)) {
        const size_t skipped = part.size() - trimStart(part).size();
        type->elements.push_back(readType(types, trim(part), position + skipped, evidence));
        position += part.size() + 1;
      }
    }
  } else if (size_t open = stable.find('<'); open != std::string_view::npos && stable.ends_with(">")) {
    type->name = stable.substr(0, open);
    type->kind = tensorKind(type->name);
    if (type->isTensor()) {
      std::string_view body = stable.substr(open + 1, stable.size() - open - 2);
      TensorTypeBody read = readTensorTypeBody(body, offset + open + 1, evidence ? &evidence->dist : nullptr);
      if (type->name == "tensor" && evidence) evidence->sawBareTensor = true;
      if (read.distributed != type->isDist())
        throw InputError{offset, stable.size(),
                         read.distributed ? fmt::format("'{}' cannot carry a distribution", type->name)
                                          : "pd_dist.tensor needs a distribution after its dtype"};
      type->dims = std::move(read.dims);
      type->dtype = read.dtype;
      type->dist = std::move(read.dist);
      type->shapeText = body.substr(0, body.find(','));
    }
  } else {
    type->name = stable;
  }
  return types.add(std::move(type));
}

}  // namespace

const Type* readType(TypeTable& types, std::string_view text, size_t offset,
                     TypeTextEvidence* evidence) {
  if (text == kNullType) return nullptr;
  if (const Type* known = types.find(text)) return known;
  return readNewType(types, text, offset, evidence);
}

std::string distTensorTypeText(const Type* base, const TensorDistAttr& dist, const DistWriteStyle& style) {
  return fmt::format("pd_dist.tensor<{}, {}>", base->shapeText, writeTypeDist(dist, style));
}

const Type* distTensorType(TypeTable& types, const Type* base, const TensorDistAttr& dist,
                           const DistWriteStyle& style) {
  return readType(types, distTensorTypeText(base, dist, style), 0);
}

const Type* vectorType(TypeTable& types, const std::vector<const Type*>& elements) {
  std::string text = "vec[";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i) text += ',';
    text += elements[i] ? elements[i]->text : kNullType;
  }
  return readType(types, text + "]", 0);
}

}  // namespace reshardctl
