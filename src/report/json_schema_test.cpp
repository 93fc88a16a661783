#include <doctest/doctest.h>

#include "report/json_schema.h"

namespace reshardctl {

namespace {
using nlohmann::json;

const json kSchema = json::parse(R"({
  "type": "object",
  "required": ["name", "dims"],
  "additionalProperties": false,
  "properties": {
    "name": {"type": "string"},
    "kind": {"enum": ["a", "b"]},
    "dims": {"type": "array", "items": {"$ref": "#/definitions/dim"}},
    "line": {"type": ["integer", "null"]}
  },
  "definitions": {"dim": {"type": "integer"}}
})");
}  // namespace

TEST_CASE("a document that follows the schema has no errors") {
  CHECK(validateJson(json::parse(R"({"name":"x","dims":[1,-1],"kind":"a","line":null})"), kSchema)
            .empty());
}

TEST_CASE("each rule of the subset rejects what it should") {
  auto errors = [](const char* text) { return validateJson(json::parse(text), kSchema); };
  CHECK(errors(R"([1])") == std::vector<std::string>{"/: expected object, got array"});
  CHECK(errors(R"({"name":"x"})") ==
        std::vector<std::string>{"/: missing required property \"dims\""});
  CHECK(errors(R"({"name":"x","dims":[],"extra":1})") ==
        std::vector<std::string>{"/extra: no value is allowed here"});
  CHECK(errors(R"({"name":"x","dims":[1,"2"]})") ==
        std::vector<std::string>{"/dims/1: expected integer, got string"});
  CHECK(errors(R"({"name":"x","dims":[],"kind":"c"})") ==
        std::vector<std::string>{"/kind: \"c\" is not one of [\"a\",\"b\"]"});
  CHECK(errors(R"({"name":"x","dims":[],"line":1.5})") ==
        std::vector<std::string>{"/line: expected integer or null, got number"});
}

TEST_CASE("keywords outside the subset and bad references are errors, not ignored") {
  CHECK(validateJson(1, json::parse(R"({"minimum": 3})")) ==
        std::vector<std::string>{"/: unsupported schema keyword 'minimum'"});
  CHECK(validateJson(1, json::parse(R"({"$ref": "#/definitions/missing"})")) ==
        std::vector<std::string>{"/: unresolvable $ref \"#/definitions/missing\"",
                                 "/: no value is allowed here"});
}

}  // namespace reshardctl
