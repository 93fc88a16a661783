#include "interp/op_attributes.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "interp/tensor.h"

namespace reshardctl {

namespace {

[[noreturn]] void unreadable(std::string_view key, std::string_view value, std::string_view wanted) {
  throw KernelError(fmt::format("cannot read attribute {}:{} as {}", key, value, wanted));
}

// The items of `[a,b,c]` (no nesting is needed for the arrays kernels read).
std::optional<std::vector<std::string_view>> arrayItems(std::string_view text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  std::vector<std::string_view> items;
  std::string_view body = text.substr(1, text.size() - 2);
  while (!body.empty()) {
    const size_t comma = body.find(',');
    items.push_back(body.substr(0, comma));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return items;
}

}  // namespace

std::string_view withoutKindPrefix(std::string_view value) {
  if (value.empty() || value.front() != '(') return value;
  const size_t close = value.find(')');
  return close == std::string_view::npos ? value : value.substr(close + 1);
}

std::optional<double> parseNumber(std::string_view text) {
  text = withoutKindPrefix(text);
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  if (text == "nan" || text == "-nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "true") return 1.0;
  if (text == "false") return 0.0;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

OpAttributes::OpAttributes(std::string_view dictionary) : entries_(splitAttributes(dictionary)) {}

std::optional<std::string_view> OpAttributes::find(std::string_view key) const {
  for (const AttributeEntry& entry : entries_)
    if (entry.key == key) return entry.value;
  return std::nullopt;
}

double OpAttributes::number(std::string_view key, double fallback) const {
  const std::optional<std::string_view> value = find(key);
  if (!value) return fallback;
  const std::optional<double> parsed = parseNumber(*value);
  if (!parsed) unreadable(key, *value, "a number");
  return *parsed;
}

int64_t OpAttributes::integer(std::string_view key, int64_t fallback) const {
  if (!has(key)) return fallback;
  return toInteger(number(key, 0.0), fmt::format("attribute {}", key));
}

bool OpAttributes::boolean(std::string_view key, bool fallback) const {
  const std::optional<std::string_view> value = find(key);
  if (!value) return fallback;
  if (*value == "true") return true;
  if (*value == "false") return false;
  unreadable(key, *value, "true or false");
}

std::vector<int64_t> OpAttributes::integers(std::string_view key, std::vector<int64_t> fallback) const {
  const std::optional<std::string_view> value = find(key);
  if (!value) return fallback;
  const std::optional<std::vector<std::string_view>> items = arrayItems(withoutKindPrefix(*value));
  if (!items) unreadable(key, *value, "an integer array");
  std::vector<int64_t> out;
  for (std::string_view item : *items) {
    const std::optional<double> parsed = parseNumber(item);
    if (!parsed) unreadable(key, *value, "an integer array");
    out.push_back(toInteger(*parsed, fmt::format("attribute {}", key)));
  }
  return out;
}

std::optional<DType> OpAttributes::dtype(std::string_view key) const {
  const std::optional<std::string_view> value = find(key);
  if (!value) return std::nullopt;
  const std::string_view name = withoutKindPrefix(*value);
  if (name == "undefined" || name == "Undefined(AnyLayout)") return std::nullopt;
  const std::optional<DType> type = parseDType(name);
  if (!type) unreadable(key, *value, "a data type");
  return type;
}

std::string_view OpAttributes::string(std::string_view key, std::string_view fallback) const {
  const std::optional<std::string_view> value = find(key);
  if (!value) return fallback;
  if (value->size() < 2 || value->front() != '"' || value->back() != '"') unreadable(key, *value, "a string");
  return value->substr(1, value->size() - 2);
}

}  // namespace reshardctl
