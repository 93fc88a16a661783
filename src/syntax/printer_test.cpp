#include "syntax/printer.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/source.h"
#include "ir/verifier.h"
#include "passes/partition_pass.h"
#include "syntax/parser.h"
#include "syntax/program_finder.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// The threads a print in pieces is compared on: two, an odd count, and more
// threads than a small program has pieces of ops.
constexpr unsigned kJobs[] = {2, 3, 8};

struct Counts {
  size_t programs = 0;    // printed and compared
  size_t unparsed = 0;    // inputs with no program (a parse error)
};

// Each program of `text` (each of a log, or the whole) printed on one thread
// and in pieces on each of kJobs, and compared; with `apply`, also after the
// partition pass (inserted ops, values numbered out of their print order).
void requireSameInPieces(const std::string& name, const std::string& text, Counts& counts, bool apply) {
  INFO(name);
  SourceFile source = SourceFile::fromString(name, text);
  DiagnosticEngine diagnostics(&source);
  std::vector<std::pair<size_t, size_t>> slices;
  for (const FoundProgram& found : findPrograms(source.text())) slices.emplace_back(found.begin, found.end);
  if (slices.empty()) slices.emplace_back(0, source.text().size());
  const bool fragment = name.find("fragments/") != std::string::npos;
  for (auto [begin, end] : slices) {
    ParseResult parsed = parseProgram(source, diagnostics, begin, end, ParseOptions{.fragment = fragment});
    if (!parsed.program) {
      ++counts.unparsed;
      continue;
    }
    auto compare = [&] {
      const std::string serial = printProgramToString(*parsed.program, PrinterOptions{.jobs = 1});
      for (unsigned jobs : kJobs) CHECK(printProgramToString(*parsed.program, PrinterOptions{.jobs = jobs}) == serial);
      ++counts.programs;
    };
    compare();
    if (apply && verifyProgram(*parsed.program, diagnostics) && applyPartitionPass(*parsed.program, diagnostics).ok)
      compare();
  }
}

// A small edit of `text`: a line deleted, doubled, moved or blank lines
// added; a few bytes deleted, or a digit or separator put in.
std::string mutated(const std::string& text, std::mt19937& random) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (lines.empty()) return text;
  auto pick = [&](size_t size) { return std::uniform_int_distribution<size_t>(0, size - 1)(random); };
  const size_t line = pick(lines.size());
  switch (pick(6)) {
    case 0: lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(line)); break;
    case 1: lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(line), lines[line]); break;
    case 2: std::swap(lines[line], lines[pick(lines.size())]); break;
    case 3: lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(line), pick(3) + 1, ""); break;
    case 4:
      if (!lines[line].empty()) lines[line].erase(pick(lines[line].size()), pick(8) + 1);
      break;
    default:
      lines[line].insert(lines[line].empty() ? 0 : pick(lines[line].size()), 1, "0123456789,%:\"{}() "[pick(19)]);
  }
  std::string result;
  for (const std::string& each : lines) result += each + '\n';
  return result;
}

}  // namespace

TEST_CASE("print in pieces: every sample, golden and bench input prints the bytes a serial print writes") {
  Counts counts;
  for (const std::filesystem::path& path : testing::repositoryInputs()) {
    const std::string relative = std::filesystem::relative(path, RESHARDCTL_SOURCE_DIR).string();
    requireSameInPieces(relative, testing::readRepoFile(relative), counts, true);
  }
  requireSameInPieces("bench-repeated.ir", testing::benchInput(3000, false), counts, true);
  requireSameInPieces("bench-varied.ir", testing::benchInput(3000, true), counts, true);
  CHECK(counts.programs > 200);
}

TEST_CASE("print in pieces: large programs are cut into many pieces and still print the same bytes") {
  testing::Parsed parsed = testing::parse(testing::benchInput(60000, true), "bench-varied.ir");
  REQUIRE(parsed.program);
  const std::string serial = printProgramToString(*parsed.program, PrinterOptions{.jobs = 1});
  CHECK(serial.size() > size_t{8} << 20);  // several pieces of 1 MiB
  CHECK(printProgramToString(*parsed.program, PrinterOptions{.jobs = 2}) == serial);
  CHECK(printProgramToString(*parsed.program, PrinterOptions{.jobs = 5}) == serial);
}

TEST_CASE("print in pieces: 1,000 and more mutated inputs print the bytes a serial print writes") {
  std::mt19937 random(26);
  Counts counts;
  size_t inputs = 0;
  std::vector<std::pair<std::string, std::string>> originals;  // name, text
  for (const std::filesystem::path& path : testing::repositoryInputs()) {
    const std::string relative = std::filesystem::relative(path, RESHARDCTL_SOURCE_DIR).string();
    originals.emplace_back(relative + " (mutated)", testing::readRepoFile(relative));
  }
  while (counts.programs < 1000 && inputs < 20000) {
    const auto& [name, text] = originals[inputs++ % originals.size()];
    requireSameInPieces(name, mutated(mutated(text, random), random), counts, false);
  }
  MESSAGE(inputs, " mutated inputs: ", counts.programs, " programs compared, ", counts.unparsed, " did not parse");
  CHECK(counts.programs >= 1000);
}

}  // namespace reshardctl
