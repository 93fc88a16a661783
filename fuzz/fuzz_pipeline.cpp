// libFuzzer target over the whole pipeline: parse → verify → print → apply →
// print. Besides "never crash, never hang", it checks properties that must
// hold for every input the parser accepts, so a fuzzer finding is a real bug:
//   - the graph's use lists are consistent after parsing and after the pass;
//   - what the printer writes parses again and prints identically (a
//     canonical form is a fixed point);
//   - the reprint is the same program to `diff` (renumbering is no difference);
//   - the JSON export can be written;
//   - the pass's output parses, and a second pass over it changes nothing.
// The same runs on every program the log scanner finds in the input (a slice
// of it, parsed in place), after checking the scanner's ranges.
#include <algorithm>
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
#include "syntax/program_finder.h"

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

// Parses bytes [begin, end) of `text` (the whole of it by default).
Loaded load(std::string text, size_t begin = 0, size_t end = std::string::npos) {
  Loaded loaded;
  end = std::min(end, text.size());
  loaded.source = std::make_unique<SourceFile>(SourceFile::fromString("fuzz.ir", std::move(text)));
  loaded.diagnostics = std::make_unique<DiagnosticEngine>(loaded.source.get());
  ParseResult parsed = parseProgram(*loaded.source, *loaded.diagnostics, begin, end);
  if (parsed.program && verifyProgram(*parsed.program, *loaded.diagnostics))
    loaded.program = std::move(parsed.program);
  (void)loaded.diagnostics->render();  // rendering carets must not crash either
  return loaded;
}

// `text` is the printer's output: it must load as the program it was
// printed from was loaded, and print back unchanged. A program read from a
// log's slice may carry a frame (a log's prefixes: syntax/text_frame.h) and
// prints with it, so its reprint is found in its text as the tool finds a
// log's; a whole input's reprint is parsed whole, as the input was (the log
// scanner reads lines, not strings: a string that spans lines can end its
// program early, and the tool then reports the slice's error).
Loaded reloadPrinted(const std::string& text, const char* what, bool wasSlice) {
  const std::vector<FoundProgram> found = wasSlice ? findPrograms(text) : std::vector<FoundProgram>{};
  Loaded again = found.size() == 1 ? load(text, found[0].begin, found[0].end) : load(text);
  if (!again.program) violated(what, text + again.diagnostics->render());
  if (printProgramToString(*again.program) != text) violated("reprint is not a fixed point", text);
  return again;
}

void checkGraphOrDie(const Program& program, const char* when) {
  std::string problem = checkGraph(program);
  if (!problem.empty()) violated(when, problem);
}

void runPipeline(std::string text, size_t begin = 0, size_t end = std::string::npos) {
  const bool slice = begin != 0 || end < text.size();
  Loaded loaded = load(std::move(text), begin, end);
  if (!loaded.program) return;
  checkGraphOrDie(*loaded.program, "graph broken after parsing");
  Loaded reprinted = reloadPrinted(printProgramToString(*loaded.program), "printed program does not parse", slice);
  ProgramDiff diff = diffPrograms(*loaded.program, *reprinted.program, {});
  if (!diff.equal())
    violated("diff finds the reprint different", formatDiff(diff, *loaded.source, *reprinted.source));
  (void)programToJson(*loaded.program, loaded.source.get());  // the text parses back as JSON

  PartitionResult result = applyPartitionPass(*loaded.program, *loaded.diagnostics);
  checkGraphOrDie(*loaded.program, "graph broken after the partition pass");
  if (!result.ok) return;  // diagnosed: the tool writes no output
  Loaded applied = reloadPrinted(printProgramToString(*loaded.program), "pass output does not parse", slice);
  PartitionResult second = applyPartitionPass(*applied.program, *applied.diagnostics);
  if (!second.inserted.empty()) violated("the pass is not idempotent", printProgramToString(*applied.program));
}

// The log path: the scanner's programs lie in order inside the text, and
// each goes through the pipeline as a slice of the whole input.
void runFoundPrograms(const std::string& text) {
  std::vector<FoundProgram> found = findPrograms(text);
  size_t previousEnd = 0;
  for (const FoundProgram& program : found) {
    if (program.begin < previousEnd || program.begin >= program.end || program.end > text.size() ||
        program.line == 0 || program.endLine < program.line)
      violated("the log scanner gave a bad range", text);
    previousEnd = program.end;
    if (program.begin == 0 && program.end == text.size()) continue;  // the whole input: done already
    runPipeline(text, program.begin, program.end);
  }
}

}  // namespace
}  // namespace reshardctl

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  reshardctl::runPipeline(text);
  reshardctl::runFoundPrograms(text);
  return 0;
}
