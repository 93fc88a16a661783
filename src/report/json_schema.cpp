#include "report/json_schema.h"

#include <algorithm>

#include <fmt/format.h>

namespace reshardctl {

namespace {

using nlohmann::json;

// Keywords that only document: nothing to check.
constexpr const char* kAnnotations[] = {"$schema", "$id", "title", "description", "definitions"};
constexpr const char* kChecked[] = {"type",     "enum",                 "properties", "required",
                                    "items",    "additionalProperties", "$ref"};

bool isOneOf(const std::string& key, const auto& names) {
  return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return key == n; });
}

bool hasType(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  return false;
}

class Validator {
 public:
  explicit Validator(const json& root) : root_(root) {}

  void check(const json& value, const json& schema, const std::string& at) {
    if (schema.is_boolean()) {  // `true` allows anything, `false` nothing
      if (!schema.get<bool>()) fail(at, "no value is allowed here");
      return;
    }
    if (!schema.is_object()) return fail(at, "schema is not an object");
    for (const auto& [key, _] : schema.items())
      if (!isOneOf(key, kAnnotations) && !isOneOf(key, kChecked))
        fail(at, fmt::format("unsupported schema keyword '{}'", key));
    if (schema.contains("$ref")) return check(value, resolve(schema["$ref"], at), at);
    if (schema.contains("type") && !checkType(value, schema["type"], at)) return;
    if (schema.contains("enum") && std::find(schema["enum"].begin(), schema["enum"].end(), value) ==
                                       schema["enum"].end())
      fail(at, fmt::format("{} is not one of {}", value.dump(), schema["enum"].dump()));
    if (value.is_object()) checkObject(value, schema, at);
    if (value.is_array() && schema.contains("items"))
      for (size_t i = 0; i < value.size(); ++i)
        check(value[i], schema["items"], fmt::format("{}/{}", at, i));
  }

  std::vector<std::string> take() { return std::move(errors_); }

 private:
  void fail(const std::string& at, const std::string& message) {
    errors_.push_back(fmt::format("{}: {}", at.empty() ? "/" : at, message));
  }

  const json& resolve(const json& ref, const std::string& at) {
    static const json kNothing = false;
    const std::string prefix = "#/definitions/";
    std::string text = ref.is_string() ? ref.get<std::string>() : "";
    if (text.rfind(prefix, 0) == 0 && root_.contains("definitions") &&
        root_["definitions"].contains(text.substr(prefix.size())))
      return root_["definitions"][text.substr(prefix.size())];
    fail(at, fmt::format("unresolvable $ref {}", ref.dump()));
    return kNothing;
  }

  bool checkType(const json& value, const json& type, const std::string& at) {
    std::vector<std::string> allowed;
    if (type.is_string()) allowed.push_back(type.get<std::string>());
    else if (type.is_array()) for (const json& t : type) if (t.is_string()) allowed.push_back(t.get<std::string>());
    if (std::any_of(allowed.begin(), allowed.end(), [&](const std::string& t) { return hasType(value, t); }))
      return true;
    fail(at, fmt::format("expected {}, got {}", fmt::join(allowed, " or "), value.type_name()));
    return false;
  }

  void checkObject(const json& value, const json& schema, const std::string& at) {
    if (schema.contains("required"))
      for (const json& name : schema["required"])
        if (name.is_string() && !value.contains(name.get<std::string>()))
          fail(at, fmt::format("missing required property {}", name.dump()));
    const json properties = schema.value("properties", json::object());
    for (const auto& [key, member] : value.items()) {
      std::string where = fmt::format("{}/{}", at, key);
      if (properties.contains(key)) check(member, properties[key], where);
      else if (schema.contains("additionalProperties")) check(member, schema["additionalProperties"], where);
    }
  }

  const json& root_;
  std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> validateJson(const json& instance, const json& schema) {
  Validator validator(schema);
  validator.check(instance, schema, "");
  return validator.take();
}

}  // namespace reshardctl
