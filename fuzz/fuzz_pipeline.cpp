// libFuzzer target over the whole pipeline: parse → verify → print → apply →
// print. Besides "never crash, never hang", it checks properties that must
// hold for every input the parser accepts, so a fuzzer finding is a real bug:
//   - the graph's use lists are consistent after parsing and after the pass;
//   - what the printer writes parses again and prints identically (a
//     canonical form is a fixed point);
//   - the reprint is the same program to `diff` (renumbering is no difference);
//   - the JSON export can be written;
//   - the pass's output parses, and a second pass over it changes nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "ir/verifier.h"
#include "passes/partition_pass.h"
#include "passes/program_diff.h"
#include "report/json_export.h"
#include "syntax/parser.h"
#include "syntax/printer.h"

namespace reshardctl {
namespace {

// Reports which property failed, then aborts so libFuzzer keeps the input.
[[noreturn]] void violated(const char* property, const std::string& detail) {
  std::fprintf(stderr, "fuzz_pipeline: %s\n%s\n", property, detail.c_str());
  std::abort();
}

struct Loaded {
  std::unique_ptr<SourceFile> source;
  std::unique_ptr<DiagnosticEngine> diagnostics;
  std::unique_ptr<Program> program;  // nullptr: rejected (diagnosed)
};

Loaded load(std::string text) {
  Loaded loaded;
  loaded.source = std::make_unique<SourceFile>(SourceFile::fromString("fuzz.ir", std::move(text)));
  loaded.diagnostics = std::make_unique<DiagnosticEngine>(loaded.source.get());
  ParseResult parsed = parseProgram(*loaded.source, *loaded.diagnostics);
  if (parsed.program && verifyProgram(*parsed.program, *loaded.diagnostics))
    loaded.program = std::move(parsed.program);
  (void)loaded.diagnostics->render();  // rendering carets must not crash either
  return loaded;
}

// `text` is the printer's output: it must load, and print back unchanged.
Loaded reloadPrinted(const std::string& text, const char* what) {
  Loaded again = load(text);
  if (!again.program) violated(what, text + again.diagnostics->render());
  if (printProgramToString(*again.program) != text) violated("reprint is not a fixed point", text);
  return again;
}

void checkGraphOrDie(const Program& program, const char* when) {
  std::string problem = checkGraph(program);
  if (!problem.empty()) violated(when, problem);
}

void runPipeline(std::string text) {
  Loaded loaded = load(std::move(text));
  if (!loaded.program) return;
  checkGraphOrDie(*loaded.program, "graph broken after parsing");
  Loaded reprinted = reloadPrinted(printProgramToString(*loaded.program), "printed program does not parse");
  ProgramDiff diff = diffPrograms(*loaded.program, *reprinted.program, {});
  if (!diff.equal())
    violated("diff finds the reprint different", formatDiff(diff, *loaded.source, *reprinted.source));
  (void)programToJson(*loaded.program, loaded.source.get());  // the text parses back as JSON

  PartitionResult result = applyPartitionPass(*loaded.program, *loaded.diagnostics);
  checkGraphOrDie(*loaded.program, "graph broken after the partition pass");
  if (!result.ok) return;  // diagnosed: the tool writes no output
  Loaded applied = reloadPrinted(printProgramToString(*loaded.program), "pass output does not parse");
  PartitionResult second = applyPartitionPass(*applied.program, *applied.diagnostics);
  if (!second.inserted.empty()) violated("the pass is not idempotent", printProgramToString(*applied.program));
}

}  // namespace
}  // namespace reshardctl

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  reshardctl::runPipeline(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
