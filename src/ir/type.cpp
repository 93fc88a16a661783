#include "ir/type.h"

namespace reshardctl {

const Type* TypeTable::find(std::string_view text) const {
  const Type* const* found = types_.find(text);
  return found ? *found : nullptr;
}

std::unique_ptr<Type> TypeTable::start(std::string_view text) {
  auto type = std::make_unique<Type>();
  type->text = strings_.intern(text);
  return type;
}

const Type* TypeTable::add(std::unique_ptr<Type> type) {
  auto entry = types_.insert(type->text, type.get());
  if (entry.added) owned_.push_back(std::move(type));
  return entry.value;  // an equal text added before stays the one Type
}

void TypeTable::adopt(const TypeTable& other) {
  types_.reserve(types_.size() + other.types_.size());
  other.types_.forEach([&](std::string_view text, const Type* type) { types_.insert(text, type); });
}

std::unordered_map<const Type*, const Type*> TypeTable::absorb(TypeTable& other) {
  std::unordered_map<const Type*, const Type*> canonical;
  canonical.reserve(other.owned_.size());
  std::vector<Type*> moved;
  for (std::unique_ptr<Type>& type : other.owned_) {
    auto entry = types_.insert(type->text, type.get());
    canonical.emplace(type.get(), entry.value);
    if (!entry.added) continue;
    moved.push_back(type.get());
    owned_.push_back(std::move(type));
  }
  // A vec's elements were made before it, in the same table: all mapped now.
  for (Type* type : moved) {
    for (const Type*& element : type->elements) {
      if (auto it = canonical.find(element); it != canonical.end()) element = it->second;
    }
  }
  other.owned_.clear();
  other.types_ = {};
  return canonical;
}

}  // namespace reshardctl
