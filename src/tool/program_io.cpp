#include "tool/program_io.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include <fmt/format.h>

#include "ir/verifier.h"
#include "support/escape.h"
#include "syntax/parser.h"
#include "syntax/printer.h"
#include "tool/output_file.h"

namespace reshardctl {

namespace {

// RESHARDCTL_MAX_INPUT: a smaller input size limit than SourceFile's 4 GiB, in
// bytes or with a suffix K, M, G (powers of 1024), e.g. "512M".
std::optional<size_t> inputLimit(std::string* error) {
  const char* text = std::getenv("RESHARDCTL_MAX_INPUT");
  if (text == nullptr || *text == '\0') return SourceFile::kMaxInputBytes;
  std::string_view spec(text);
  uint64_t number = 0;
  auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), number);
  std::string_view suffix(end, static_cast<size_t>(spec.data() + spec.size() - end));
  int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : -1;
  if (ec != std::errc() || shift < 0 || number == 0 ||
      number > (SourceFile::kMaxInputBytes >> shift)) {
    *error = fmt::format("RESHARDCTL_MAX_INPUT='{}' is not a size from 1 to 4G-1 bytes "
                         "(a number of bytes, or with a suffix K, M or G)", spec);
    return std::nullopt;
  }
  return static_cast<size_t>(number << shift);
}

bool isIndex(const std::string& selector) {
  return !selector.empty() && selector.size() <= 9 &&
         std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The program `selector` names among `found`, or nullptr after a usage error
// that lists them.
const FoundProgram* choose(const std::vector<FoundProgram>& found, const std::string& selector,
                           const SourceFile& source, DiagnosticEngine& diagnostics) {
  if (selector.empty() && found.size() == 1) return &found.front();
  if (isIndex(selector)) {
    size_t index = std::stoul(selector);
    if (index >= 1 && index <= found.size()) return &found[index - 1];
  } else if (!selector.empty()) {
    for (const FoundProgram& program : found)
      if (program.label.find(selector) != std::string::npos) return &program;
  }
  std::string why = selector.empty()
                        ? fmt::format("'{}' holds {} programs; choose one with --program N (or --program TEXT, "
                                      "the first whose label contains TEXT)", source.name(), found.size())
                        : fmt::format("no program {} in '{}', which holds:", isIndex(selector) ? selector
                                          : "labelled '" + selector + "'", source.name());
  std::string table = formatProgramTable(found);
  for (size_t at = 0; at < table.size(); at = table.find('\n', at) + 1) table.insert(at, "  ");
  table.pop_back();
  diagnostics.error(why + "\n" + table);
  return nullptr;
}

// Parses and verifies `program` of `source` (nullptr: the whole file).
LoadedProgram parseFound(std::shared_ptr<SourceFile> source, const FoundProgram* program, size_t index,
                         DiagnosticEngine& diagnostics) {
  LoadedProgram loaded;
  loaded.source = std::move(source);
  diagnostics.setSource(loaded.source.get());
  loaded.begin = program ? program->begin : 0;
  loaded.end = program ? program->end : loaded.source->text().size();
  loaded.index = index;
  ParseResult parsed = parseProgram(*loaded.source, diagnostics, loaded.begin, loaded.end);
  loaded.denselyNumbered = parsed.denselyNumbered;
  if (std::optional<size_t> missing = loaded.source->truncatedAt()) {
    // What was parsed is not the file: errors about its zeros would mislead.
    diagnostics.clear();
    diagnostics.error(fmt::format("'{}' was truncated (or failed to read) while it was being read: "
                                  "its bytes from offset {} on are missing",
                                  loaded.source->name(), *missing));
    loaded.failure = kExitUsage;
    return loaded;
  }
  if (!parsed.program || !verifyProgram(*parsed.program, diagnostics)) {
    loaded.failure = kExitBadInput;
    return loaded;
  }
  loaded.program = std::move(parsed.program);
  return loaded;
}

}  // namespace

std::shared_ptr<SourceFile> readSourceFile(const std::string& path, DiagnosticEngine& diagnostics,
                                           int* failure) {
  std::string error;
  std::optional<size_t> limit = inputLimit(&error);
  std::optional<SourceFile> source;
  if (limit) source = SourceFile::load(path, &error, {*limit});
  if (!source) {
    diagnostics.error(error);
    *failure = kExitUsage;
    return nullptr;
  }
  auto file = std::make_shared<SourceFile>(std::move(*source));
  if (const auto& cutoff = file->cutoff()) {  // too large, endless or binary: shown where reading stopped
    diagnostics.setSource(file.get());
    diagnostics.error(cutoff->offset, 1, cutoff->message);
    *failure = kExitBadInput;
  }
  return file;
}

std::vector<FoundProgram> findProgramsIn(SourceFile& source) {
  size_t dropped = 0;
  return findPrograms(source.text(), [&](size_t scannedTo) {
    source.dropPages(dropped, scannedTo);
    dropped = scannedTo;
  });
}

LoadedProgram loadProgramFrom(std::shared_ptr<SourceFile> source, DiagnosticEngine& diagnostics,
                              const std::string& selector) {
  diagnostics.setSource(source.get());
  // No program found: parse the whole file, so a broken dump is diagnosed.
  const std::vector<FoundProgram> found = findProgramsIn(*source);
  if (found.empty()) return parseFound(std::move(source), nullptr, 0, diagnostics);
  const FoundProgram* chosen = choose(found, selector, *source, diagnostics);
  if (!chosen) {
    LoadedProgram loaded;
    loaded.source = std::move(source);
    loaded.failure = kExitUsage;
    return loaded;
  }
  const size_t index = found.size() > 1 ? static_cast<size_t>(chosen - found.data()) + 1 : 0;
  return parseFound(std::move(source), chosen, index, diagnostics);
}

LoadedProgram loadProgram(const InputProgram& input, DiagnosticEngine& diagnostics) {
  if (!input.source) return loadProgram(input.path, diagnostics, input.selector);
  return parseFound(input.source, input.found ? &*input.found : nullptr, input.index, diagnostics);
}

LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diagnostics, const std::string& selector) {
  int failure = kExitOk;
  std::shared_ptr<SourceFile> source = readSourceFile(path, diagnostics, &failure);
  if (!source || failure != kExitOk) {
    LoadedProgram loaded;
    loaded.source = std::move(source);  // the diagnostics point into it
    loaded.failure = failure;
    return loaded;
  }
  return loadProgramFrom(std::move(source), diagnostics, selector);
}

std::string formatProgramTable(const std::vector<FoundProgram>& programs) {
  std::vector<std::string> lines, passes;
  size_t linesWidth = 5, opsWidth = 3, passWidth = 4;
  for (const FoundProgram& p : programs) {
    lines.push_back(fmt::format("{}-{}", p.line, p.endLine));
    linesWidth = std::max(linesWidth, lines.back().size());
    opsWidth = std::max(opsWidth, fmt::formatted_size("{}", p.opCount));
    passes.push_back(p.pass.empty() ? "-" : terminalLine(p.pass));  // names from the log: shown escaped
    passWidth = std::max(passWidth, passes.back().size());
  }
  size_t indexWidth = std::max<size_t>(1, fmt::formatted_size("{}", programs.size()));
  std::string out = fmt::format("{:>{}}  {:<{}}  {:>{}}  {:<4}  {:<{}}  {}\n", "#", indexWidth, "lines", linesWidth,
                                "ops", opsWidth, "dist", "pass", passWidth, "label");
  for (size_t i = 0; i < programs.size(); ++i) {
    const FoundProgram& p = programs[i];
    std::string label = terminalLine(p.label) + (p.closed ? "" : " (not closed: the file ends first)");
    out += fmt::format("{:>{}}  {:<{}}  {:>{}}  {:<4}  {:<{}}  {}", i + 1, indexWidth, lines[i], linesWidth,
                       p.opCount, opsWidth, p.distributed ? "yes" : "no", passes[i],
                       passWidth, label);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  return out;
}

int writeOutput(const std::string& path, DiagnosticEngine& diagnostics,
                const std::function<bool(OutputSink&)>& render) {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  if (!out) {
    diagnostics.error(error);
    return kExitUsage;
  }
  // A failed write is known to the output file, with its reason; a render
  // that failed publishes nothing.
  if (!render(out->sink())) out->abandon(&error);
  else if (out->commit(&error)) return kExitOk;
  diagnostics.error(error.empty() ? "cannot write '" + path + "'" : error);
  return kExitUsage;
}

std::string fileTextWithProgram(const Program& program, const LoadedProgram& loaded) {
  std::string_view text = loaded.source->text();
  std::string printed = printProgramToString(program);
  if (loaded.begin == 0 && loaded.end == text.size()) return printed;
  // The closing line went on (`}  // end`): the rest follows the '}'.
  if (text[loaded.end - 1] != '\n') printed.pop_back();
  std::string whole(text.substr(0, loaded.begin));
  whole += printed;
  whole += text.substr(loaded.end);
  return whole;
}

int writeProgram(const Program& program, const std::string& path, DiagnosticEngine& diagnostics) {
  return writeOutput(path, diagnostics, [&](OutputSink& out) { return printProgram(program, out); });
}

int writeProgramInPlace(const Program& program, const LoadedProgram& loaded, const std::string& path,
                        DiagnosticEngine& diagnostics) {
  std::string_view text = loaded.source->text();
  if (loaded.begin == 0 && loaded.end == text.size()) return writeProgram(program, path, diagnostics);
  return writeOutput(path, diagnostics, [&](OutputSink& out) {
    out.write(text.substr(0, loaded.begin));
    if (text[loaded.end - 1] == '\n') {
      printProgram(program, out);
    } else {  // the closing line went on (`}  // end`): the rest follows the '}'
      std::string printed = printProgramToString(program);
      printed.pop_back();
      out.write(printed);
    }
    out.write(text.substr(loaded.end));
    return !out.failed();
  });
}

int writeTextOutput(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics) {
  return writeOutput(path, diagnostics, [&](OutputSink& out) {
    out.write(text);
    return !out.failed();
  });
}

}  // namespace reshardctl
