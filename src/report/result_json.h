// The JSON documents of the commands' results besides the program itself
// (json_export.h) and plans (plan_output.h), in the one vocabulary all of
// them share (schema/README.md): every document starts with "format"
// ("reshardctl-verify", ...) and "version"; a place in an input is
// {"file","line","col"}; a distribution is json_export.h's tensorDistToJson
// ({"mesh":{"shape","process_ids"},"dims_mapping","partial"}); values and ops
// are named as the program prints them ("%8", "pd_op.relu").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "passes/check_report.h"
#include "passes/program_diff.h"

namespace reshardctl {

// {"format":"reshardctl-KIND","version":1}, to which a document adds its fields.
nlohmann::ordered_json documentJson(const std::string& kind);

// {"file","line","col"} of a byte offset in `source`.
nlohmann::ordered_json placeJson(const SourceFile& source, size_t offset);
// An op's place: placeJson, or null for an op a pass made (offset 0: no
// place in the input).
nlohmann::ordered_json locationJson(const SourceFile& source, size_t offset);

// The number of a program in a file holding several (1-based); null for 0,
// a file holding one.
nlohmann::ordered_json programIndexJson(size_t index);

// verify: one input's outcome. "status" is "ok", "warnings" or "errors";
// `diagnostics` in reporting order (diagnostic_formats.h's records);
// "program" the program's number in a file holding several.
nlohmann::ordered_json verifyFileJson(const std::string& file, size_t program, const SourceFile* source,
                                      const std::vector<const Diagnostic*>& diagnostics, size_t errors,
                                      size_t warnings);

// apply --check: one reshard the pass would insert.
nlohmann::ordered_json neededReshardJson(const SourceFile& source, const NeededReshard& needed);

// diff: the structural changes, with the summary counts.
nlohmann::ordered_json programDiffJson(const ProgramDiff& diff, const SourceFile& before, const SourceFile& after);

}  // namespace reshardctl
