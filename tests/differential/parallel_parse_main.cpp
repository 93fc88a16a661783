// The parallel parse's differential test: every input is parsed serially and
// in chunks of 1 to 7 top-level ops (syntax/parallel/parallel_parse.h,
// ParseOptions::opsPerChunk), and the two must agree on everything the
// parse makes: the diagnostics, the printed bytes, and the graph itself
// (ops, value ids, types as the same interned Type, dist attrs, every use
// list in order, layout and written form), then the partition pass's
// diagnostics and output on each, the chunked side's verifier, pass and
// printer on three threads. Inputs: files (samples, goldens, bench
// programs), generated programs (program_generator.h) in every print
// generation, and byte-level mutations of both (errors, warnings and odd
// layouts, where the chunks must give way to the serial parse).
//
//   parallel_parse_check [--count N] [--seed S] [--mutations M] [--min-stitched P] [--input FILE]...
// --count: generated programs; --mutations: mutated copies of each input;
// --min-stitched: the percentage of clean inputs (more top-level ops than a chunk holds) that must
// have been stitched, not handed back to the serial parse (default 90).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "ir/verifier.h"
#include "passes/partition_pass.h"
#include "support/parallel_jobs.h"
#include "program_generator.h"
#include "program_text.h"
#include "syntax/dist_attr_text.h"
#include "syntax/parser.h"
#include "syntax/printer.h"

using namespace reshardctl;

namespace {

struct Options {
  uint64_t count = 100;
  uint64_t seed = 1;
  uint64_t mutations = 4;
  double minStitched = 90;
  std::vector<std::string> inputs;
};

// Everything one parse made, as text: two parses agree when these are equal.
struct Outcome {
  std::string diagnostics;
  std::string printed;
  std::string graph;
  std::string afterPass;  // the pass's diagnostics and output
  size_t chunks = 1;
  size_t topLevelOps = 0;
  bool parsed = false;
};

std::string spellingOf(const HeaderSpelling& s) {
  return fmt::format("{}{}{}{}{}{}/{}", s.unquotedName, s.braceAttached, s.braceOnOwnLine, s.parenAttached,
                     s.arrowBlankTaken, s.whileBlankTaken, s.indentShift);
}

// The graph as text: each op with its fields, each value with its id, type
// (and whether it is the table's one Type of that text), dist and uses in
// list order (the user op's walk ordinal and operand index).
class GraphText {
 public:
  explicit GraphText(Program& program) : program_(program) {
    walkOps(*program.body(), [&](const Operation* op) { ordinal_.emplace(op, ordinal_.size()); });
  }

  std::string run() {
    const Program& p = program_;
    out_ << fmt::format("values {} debug {} indent {} header '{}' fragment {} noNewline {} first {} gen {} "
                        "placements {} prefixes {} crlf {} blank {}\n",
                        p.valueCount(), p.usesDebugIds(), int(p.indentStyle()), p.moduleHeader(), p.isFragment(),
                        p.endsWithoutNewline(), p.firstResultNumber(), int(p.generation()), p.distStyle().placements,
                        p.linePrefixes().size(), p.crlfLines(), p.hasBlankLines());
    block(*p.body());
    out_ << "check: " << checkGraph(p) << "\n";
    return out_.str();
  }

 private:
  void value(const char* what, const Value* v) {
    const Type* type = v->type;
    bool canonical = type == nullptr || type == pendingType() || program_.types().find(type->text) == type;
    std::string dist = v->dist == nullptr ? "-" : type && v->dist == &type->dist ? "type"
                                                : writeTypeDist(*v->dist, program_.distStyle());
    out_ << fmt::format("  {} id {} index {} name '{}' type '{}' {} dist {} uses", what, v->id, v->index, v->argName,
                        type ? type->text : "<null>", canonical ? "interned" : "NOT-INTERNED", dist);
    for (const Operand* use = v->firstUse; use; use = use->nextUse()) {
      size_t index = 0;
      while (&use->owner()->operand(index) != use) ++index;
      out_ << fmt::format(" {}.{}", ordinal_.at(use->owner()), index);
    }
    out_ << "\n";
  }

  void block(const Block& b) {
    out_ << fmt::format("block args {} kw {} ownLines {} close {} end '{}'\n", b.arguments().size(),
                        b.argumentsAreKeywords(), b.argumentsOnOwnLines(), int(b.closeShift()),
                        program_.blankLinesAtEnd(&b));
    for (size_t i = 0; i < b.arguments().size(); ++i) {
      out_ << fmt::format("  attrs '{}'\n", b.argumentAttributes(i));
      value("arg", b.arguments()[i]);
    }
    for (const Operation* op : b) {
      out_ << fmt::format("op {} '{}' {} at {} dist@{} id {} syntax {} spelling {} blank '{}' operands", ordinal_.at(op),
                          op->name(), op->attributes(), op->location(), op->distAttrLocation(),
                          op->debugId().value_or(0), int(op->regionSyntax()), spellingOf(op->headerSpelling()),
                          program_.blankLinesBefore(op));
      for (size_t i = 0; i < op->numOperands(); ++i) out_ << " " << (op->operandValue(i) ? op->operandValue(i)->id : -1);
      out_ << fmt::format(" dist {}\n", op->distAttr() ? writeOpDistAttr(*op->distAttr(), program_.distStyle()) : "-");
      for (size_t i = 0; i < op->numResults(); ++i) value("result", op->result(i));
      for (const Block* region : op->regions()) block(*region);
    }
  }

  Program& program_;
  std::map<const Operation*, size_t> ordinal_;
  std::ostringstream out_;
};

// The chunked side runs every later stage on threads too (the verifier, the
// partition pass's search, the print in pieces, as -j 3 makes them: pieces
// of a few ops each in these small programs); the serial side on one.
Outcome parseOnce(const std::string& name, const std::string& text, size_t opsPerChunk) {
  setRequestedJobs(opsPerChunk ? 3 : 1);
  SourceFile source = SourceFile::fromString(name, text);
  DiagnosticEngine diagnostics(&source);
  ParseOptions options;
  options.jobs = opsPerChunk ? 2 : 1;
  options.opsPerChunk = opsPerChunk;
  ParseResult result = parseProgram(source, diagnostics, 0, source.text().size(), options);
  Outcome outcome;
  outcome.chunks = result.chunks;
  if (result.program && verifyProgram(*result.program, diagnostics)) {
    outcome.parsed = true;
    for (const Operation* op : *result.program->body()) outcome.topLevelOps += op != nullptr;
    outcome.printed = printProgramToString(*result.program);
    outcome.graph = GraphText(*result.program).run();
  }
  outcome.diagnostics = diagnostics.render();
  if (outcome.parsed) {
    DiagnosticEngine passDiagnostics(&source);
    applyPartitionPass(*result.program, passDiagnostics);
    outcome.afterPass = passDiagnostics.render() + printProgramToString(*result.program);
  }
  return outcome;
}

// Where two texts first differ, for the report.
std::string firstDifference(const std::string& a, const std::string& b) {
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  size_t from = at > 80 ? at - 80 : 0;
  return fmt::format("at byte {}:\n  serial:  ...{}\n  chunked: ...{}", at, a.substr(from, 160), b.substr(from, 160));
}

struct Tally {
  size_t parses = 0, stitched = 0, clean = 0, cleanStitched = 0, failures = 0;
};

// Serial against chunks of 1..7 ops (`sizes`); false on a disagreement.
void compare(const std::string& name, const std::string& text, const std::vector<size_t>& sizes, Tally& tally) {
  Outcome serial = parseOnce(name, text, 0);
  for (size_t size : sizes) {
    Outcome chunked = parseOnce(name, text, size);
    ++tally.parses;
    tally.stitched += chunked.chunks > 1;
    bool clean = serial.parsed && serial.diagnostics.empty() && serial.topLevelOps > size;  // at least one cut
    tally.clean += clean;
    tally.cleanStitched += clean && chunked.chunks > 1;
    const char* field = serial.diagnostics != chunked.diagnostics ? "diagnostics"
                        : serial.printed != chunked.printed       ? "printed bytes"
                        : serial.graph != chunked.graph           ? "graph"
                        : serial.afterPass != chunked.afterPass   ? "pass output"
                                                                  : nullptr;
    if (!field) continue;
    ++tally.failures;
    const std::string& a = field[0] == 'd' ? serial.diagnostics : field[0] == 'p' && field[1] == 'r' ? serial.printed
                           : field[0] == 'g' ? serial.graph : serial.afterPass;
    const std::string& b = field[0] == 'd' ? chunked.diagnostics : field[0] == 'p' && field[1] == 'r' ? chunked.printed
                           : field[0] == 'g' ? chunked.graph : chunked.afterPass;
    std::fprintf(stderr, "FAIL %s, chunks of %zu ops (%zu chunks): %s differ %s\n", name.c_str(), size, chunked.chunks,
                 field, firstDifference(a, b).c_str());
    if (tally.failures <= 3) std::fprintf(stderr, "--- input ---\n%s\n---\n", text.c_str());
  }
}

// One byte-level change of `text`: lines dropped, doubled, swapped, blanked
// or indented, a digit or a value name changed, a byte dropped, the text cut.
std::string mutate(std::string text, std::mt19937_64& random) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() < 3) return text + "\n";
  auto pick = [&](size_t n) { return static_cast<size_t>(random() % n); };
  size_t line = 1 + pick(lines.size() - 2);
  switch (pick(10)) {
    case 0: lines.erase(lines.begin() + static_cast<long>(line)); break;
    case 1: lines.insert(lines.begin() + static_cast<long>(line), lines[line]); break;
    case 2: std::swap(lines[line], lines[line + 1]); break;
    case 3: lines.insert(lines.begin() + static_cast<long>(line), std::string(pick(6), ' ')); break;
    case 4: lines[line] = " " + lines[line]; break;
    case 5: lines[line] += std::string(1 + pick(2), ' '); break;
    case 6: {
      size_t digit = lines[line].find_first_of("0123456789", pick(lines[line].size() + 1));
      if (digit != std::string::npos) lines[line][digit] = static_cast<char>('0' + pick(10));
      break;
    }
    case 7: {
      size_t percent = lines[line].find('%', pick(lines[line].size() + 1));
      if (percent != std::string::npos) lines[line].insert(percent + 1, std::to_string(pick(40)));
      break;
    }
    case 8: if (!lines[line].empty()) lines[line].erase(pick(lines[line].size()), 1); break;
    default: {
      std::string joined;
      for (const std::string& l : lines) joined += l + "\n";
      return joined.substr(0, pick(joined.size()));
    }
  }
  std::string joined;
  for (const std::string& l : lines) joined += l + "\n";
  if (!text.empty() && text.back() != '\n') joined.pop_back();
  return joined;
}

Options parseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--count") options.count = std::strtoull(value, nullptr, 10);
    else if (flag == "--seed") options.seed = std::strtoull(value, nullptr, 10);
    else if (flag == "--mutations") options.mutations = std::strtoull(value, nullptr, 10);
    else if (flag == "--min-stitched") options.minStitched = std::strtod(value, nullptr);
    else if (flag == "--input") options.inputs.emplace_back(value);
    else {
      std::fprintf(stderr, "usage: parallel_parse_check [--count N] [--seed S] [--mutations M] "
                           "[--min-stitched P] [--input FILE]...\n");
      std::exit(2);
    }
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parseOptions(argc, argv);
  std::vector<std::pair<std::string, std::string>> inputs;  // name, text
  for (const std::string& path : options.inputs) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "cannot read '%s'\n", path.c_str());
      return 2;
    }
    inputs.emplace_back(path, std::string(std::istreambuf_iterator<char>(file), {}));
  }
  for (uint64_t seed = options.seed; seed < options.seed + options.count; ++seed) {
    differential::Gen gen = differential::kAllGens[seed % 4];
    inputs.emplace_back(fmt::format("generated seed {} gen {}", seed, differential::genName(gen)),
                        differential::renderProgram(differential::generateProgram(seed), {gen}).text);
  }
  Tally tally, mutated;
  std::mt19937_64 random(options.seed);
  const std::vector<size_t> allSizes = {1, 2, 3, 4, 5, 6, 7};
  for (const auto& [name, text] : inputs) {
    compare(name, text, allSizes, tally);
    for (uint64_t m = 0; m < options.mutations; ++m) {
      std::string changed = mutate(text, random);
      compare(fmt::format("{} mutation {}", name, m), changed, {1 + random() % 7}, mutated);
    }
  }
  double percent = tally.clean ? 100.0 * double(tally.cleanStitched) / double(tally.clean) : 100.0;
  std::printf("%zu inputs: %zu parses in chunks compared, %zu stitched (clean inputs: %zu of %zu, %.1f%%); "
              "%zu mutated inputs: %zu stitched; %zu failures\n",
              inputs.size(), tally.parses, tally.stitched, tally.cleanStitched, tally.clean, percent, mutated.parses,
              mutated.stitched, tally.failures + mutated.failures);
  if (tally.failures + mutated.failures) return 1;
  if (percent < options.minStitched) {
    std::fprintf(stderr, "only %.1f%% of clean inputs were stitched (at least %.1f%% expected)\n", percent,
                 options.minStitched);
    return 1;
  }
  return 0;
}
