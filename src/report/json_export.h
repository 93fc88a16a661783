// The program as JSON for scripts (`print --emit=json`), shaped by
// schema/program.schema.json: ops in print order with name, source line,
// results and operands (printed names and types), attributes as verbatim
// text, op_dist_attr structured, and nested blocks.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ir/ir.h"
#include "ir/source.h"
#include "support/output_sink.h"

namespace reshardctl {

// The export as text, indented as nlohmann::json's dump(2) writes it (the
// goldens in tests/golden/json). A dump's strings are bytes, JSON text is
// UTF-8: invalid sequences become U+FFFD instead of failing the export.
// `source` gives line numbers; ops it does not hold (made by a pass) and a
// null `source` give "line": null.
std::string programJsonText(const Program& program, const SourceFile* source);

// The same text written to `out` one top-level op at a time: memory holds
// about one op's JSON, never the document. Returns false when writing failed.
bool writeProgramJson(const Program& program, const SourceFile* source, OutputSink& out);

// The export as a json value, for code that inspects it.
nlohmann::ordered_json programToJson(const Program& program, const SourceFile* source);

// The structured forms as json values, for the other documents of the one
// vocabulary (schema/README.md): written by the same code as the export, so
// a mesh or a layout has one shape everywhere.
nlohmann::ordered_json meshToJson(const ProcessMesh& mesh);
nlohmann::ordered_json tensorDistToJson(const TensorDistAttr& dist);
nlohmann::ordered_json opDistToJson(const OpDistAttr& attr);

// A json value as text, indented as the export is. A dump's strings are
// bytes, JSON text is UTF-8: invalid sequences become U+FFFD.
std::string dumpJson(const nlohmann::ordered_json& value);

}  // namespace reshardctl
