#include "ir/type.h"

namespace reshardctl {

const Type* TypeTable::find(std::string_view text) const {
  auto it = types_.find(text);
  return it == types_.end() ? nullptr : it->second.get();
}

std::unique_ptr<Type> TypeTable::start(std::string_view text) {
  auto type = std::make_unique<Type>();
  type->text = strings_.intern(text);
  return type;
}

const Type* TypeTable::add(std::unique_ptr<Type> type) {
  const Type* result = type.get();
  types_.emplace(type->text, std::move(type));
  return result;
}

}  // namespace reshardctl
