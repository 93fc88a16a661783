// The program as JSON for scripts (`print --emit=json`), shaped by
// schema/program.schema.json: ops in print order with name, source line,
// results and operands (printed names and types), attributes as verbatim
// text, op_dist_attr structured, and nested blocks.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/ir.h"
#include "ir/source.h"

namespace reshardctl {

// `source` gives line numbers; ops it does not hold (made by a pass) and a
// null `source` give "line": null.
nlohmann::ordered_json programToJson(const Program& program, const SourceFile* source);

// The export as text, indented. A dump's strings are bytes, JSON text is
// UTF-8: invalid sequences become U+FFFD instead of failing the whole export.
std::string dumpJson(const nlohmann::ordered_json& value);

// The same text as dumpJson(programToJson(program, source)), written to
// `out` one top-level op at a time: memory holds one op's JSON, never the
// document. Returns false when writing failed.
bool writeProgramJson(const Program& program, const SourceFile* source, std::FILE* out);

// The structured forms, also used on their own.
nlohmann::ordered_json meshToJson(const ProcessMesh& mesh);
nlohmann::ordered_json tensorDistToJson(const TensorDistAttr& dist);
nlohmann::ordered_json opDistToJson(const OpDistAttr& attr);

}  // namespace reshardctl
