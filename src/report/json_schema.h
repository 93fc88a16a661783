// A JSON Schema validator for the subset schema/program.schema.json uses:
// type, enum, properties, required, additionalProperties, items and $ref to
// "#/definitions/NAME". No Debian C++ package validates JSON Schema, and the
// export's test needs one. A keyword outside the subset is reported as an
// error, so a schema cannot quietly rely on a rule nobody checks.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace reshardctl {

// Returns one message per violation ("/ops/3/line: expected integer or null,
// got string"); empty when `instance` is valid.
std::vector<std::string> validateJson(const nlohmann::json& instance, const nlohmann::json& schema);

}  // namespace reshardctl
