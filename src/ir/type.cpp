#include "ir/type.h"

namespace reshardctl {

const Type* TypeTable::find(std::string_view text) const {
  auto it = types_.find(text);
  return it == types_.end() ? nullptr : it->second;
}

std::unique_ptr<Type> TypeTable::start(std::string_view text) {
  auto type = std::make_unique<Type>();
  type->text = strings_.intern(text);
  return type;
}

const Type* TypeTable::add(std::unique_ptr<Type> type) {
  auto [it, fresh] = types_.emplace(type->text, type.get());
  if (fresh) owned_.push_back(std::move(type));
  return it->second;  // an equal text added before stays the one Type
}

void TypeTable::adopt(const TypeTable& other) {
  types_.reserve(types_.size() + other.types_.size());
  for (const auto& [text, type] : other.types_) types_.emplace(text, type);
}

}  // namespace reshardctl
