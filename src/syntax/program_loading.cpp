#include "syntax/program_loading.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "ir/verifier.h"
#include "support/escape.h"
#include "syntax/parser.h"

namespace reshardctl {

void readProgramFile(InputFile& file, const SourceFile::LoadOptions& options) {
  std::optional<SourceFile> source = SourceFile::load(file.path, &file.error, options);
  if (!source) {
    file.failure = kExitUsage;
    return;
  }
  file.source = std::make_shared<SourceFile>(std::move(*source));
  if (const auto& cutoff = file.source->cutoff()) {  // too large, endless or binary: shown where reading stopped
    file.failure = kExitBadInput;
    file.error = cutoff->message;
    file.errorAt = cutoff->offset;
    return;
  }
  // Each drop starts where the last one stopped, on a page boundary, so no
  // page between two is left resident.
  size_t dropped = 0;
  SourceFile& text = *file.source;
  file.programs = findPrograms(text.text(), [&](size_t scannedTo) { dropped = text.dropPages(dropped, scannedTo); });
}

bool reportReadFailure(const InputFile& file, DiagnosticEngine& diagnostics) {
  if (file.failure == kExitOk) return false;
  if (file.errorAt) {
    diagnostics.setSource(file.source.get());
    diagnostics.error(*file.errorAt, 1, file.error);
  } else {
    diagnostics.error(file.error);
  }
  return true;
}

bool isProgramIndex(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool selectsProgram(const FoundProgram& program, size_t number, const std::string& selector) {
  if (isProgramIndex(selector)) return std::stoul(selector) == number;
  for (auto [prefix, stage] : {std::pair{"before:", PassStage::Before}, std::pair{"after:", PassStage::After}}) {
    const std::string_view when(prefix);
    if (selector.compare(0, when.size(), when) != 0) continue;
    const std::string pass = selector.substr(when.size());
    return passStageOf(program.label) == stage && (pass.empty() || program.pass == pass);
  }
  return program.label.find(selector) != std::string::npos;
}

namespace {

// How a usage error names what `selector` asked for.
std::string selectorText(const std::string& selector) {
  if (isProgramIndex(selector)) return selector;
  for (const char* when : {"before", "after"}) {
    const std::string prefix = std::string(when) + ":";
    if (selector.compare(0, prefix.size(), prefix) == 0)
      return fmt::format("printed {} {}", when,
                         selector.size() == prefix.size() ? "a pass" : "pass '" + selector.substr(prefix.size()) + "'");
  }
  return "labelled '" + selector + "'";
}

// The program `selector` names among `found` (the first that it selects), or
// nullptr after a usage error that lists them.
const FoundProgram* choose(const std::vector<FoundProgram>& found, const std::string& selector,
                           const SourceFile& source, DiagnosticEngine& diagnostics) {
  if (selector.empty() && found.size() == 1) return &found.front();
  if (!selector.empty())
    for (size_t i = 0; i < found.size(); ++i)
      if (selectsProgram(found[i], i + 1, selector)) return &found[i];
  std::string why = selector.empty()
                        ? fmt::format("'{}' holds {} programs; choose one with --program N (or --program TEXT, "
                                      "the first whose label contains TEXT)", source.name(), found.size())
                        : fmt::format("no program {} in '{}', which holds:", selectorText(selector), source.name());
  // The table indented, built in one pass: an insert per line would move the
  // rest of the table each time (quadratic in a log of 200,000 programs).
  const std::string table = formatProgramTable(found);  // its labels and passes escaped for a terminal
  std::string listing;
  listing.reserve(table.size() + 2 * found.size() + 2);
  for (size_t at = 0; at < table.size();) {
    const size_t end = table.find('\n', at);
    listing.append("  ").append(table, at, end - at);
    at = end + 1;
    if (at < table.size()) listing += '\n';
  }
  diagnostics.error(why).listing = std::move(listing);
  return nullptr;
}

LoadedProgram failedLoad(std::shared_ptr<SourceFile> source, int failure) {
  LoadedProgram loaded;
  loaded.source = std::move(source);  // the diagnostics point into it
  loaded.failure = failure;
  return loaded;
}

// Parses and verifies `program` of `source` (nullptr: the whole file).
LoadedProgram parseFound(std::shared_ptr<SourceFile> source, const FoundProgram* program, size_t index,
                         DiagnosticEngine& diagnostics, bool fragment) {
  LoadedProgram loaded;
  loaded.source = std::move(source);
  diagnostics.setSource(loaded.source.get());
  loaded.begin = program ? program->begin : 0;
  loaded.end = program ? program->end : loaded.source->text().size();
  loaded.index = index;
  ParseOptions options;
  options.fragment = fragment;
  ParseResult parsed = parseProgram(*loaded.source, diagnostics, loaded.begin, loaded.end, options);
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

LoadedProgram loadFoundProgram(const InputFile& file, const ProgramChoice& choice, DiagnosticEngine& diagnostics) {
  if (reportReadFailure(file, diagnostics)) return failedLoad(file.source, file.failure);
  if (choice.index > 0)
    return parseFound(file.source, &file.programs[choice.index - 1], choice.index, diagnostics, file.fragment);
  diagnostics.setSource(file.source.get());
  // No program found: parse the whole file, so a broken dump is diagnosed.
  if (file.programs.empty()) return parseFound(file.source, nullptr, 0, diagnostics, file.fragment);
  const FoundProgram* chosen = choose(file.programs, choice.selector, *file.source, diagnostics);
  if (!chosen) return failedLoad(file.source, kExitUsage);
  const size_t index = file.programs.size() > 1 ? static_cast<size_t>(chosen - file.programs.data()) + 1 : 0;
  return parseFound(file.source, chosen, index, diagnostics, file.fragment);
}

namespace {

// The three columns of `list --reshards`, each a string: "-" when the program could not be loaded.
std::vector<std::string> reshardColumns(const ProgramReshards& r) {
  if (!r.loaded) return {"-", "-", "-"};
  return {fmt::format("{}", r.existing), fmt::format("{}", r.needed), fmt::format("{:.2f}", r.estUs)};
}

}  // namespace

std::string formatProgramTable(const std::vector<FoundProgram>& programs,
                               const std::vector<ProgramReshards>* reshards) {
  static const std::vector<std::string> kReshardHeadings = {"reshards", "apply", "est_us"};
  std::vector<std::string> lines, passes;
  std::vector<std::vector<std::string>> extra;
  size_t linesWidth = 5, opsWidth = 3, passWidth = 4;
  std::vector<size_t> extraWidths;
  for (const std::string& heading : kReshardHeadings) extraWidths.push_back(heading.size());
  for (size_t i = 0; i < programs.size(); ++i) {
    const FoundProgram& p = programs[i];
    lines.push_back(fmt::format("{}-{}", p.line, p.endLine));
    linesWidth = std::max(linesWidth, lines.back().size());
    opsWidth = std::max(opsWidth, fmt::formatted_size("{}", p.opCount));
    passes.push_back(p.pass.empty() ? "-" : terminalLine(p.pass));  // names from the log: shown escaped
    passWidth = std::max(passWidth, passes.back().size());
    if (!reshards) continue;
    extra.push_back(reshardColumns((*reshards)[i]));
    for (size_t c = 0; c < extra.back().size(); ++c) extraWidths[c] = std::max(extraWidths[c], extra.back()[c].size());
  }
  // The reshard columns, right-aligned after "dist", or nothing.
  auto columns = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; reshards && c < cells.size(); ++c) text += fmt::format("  {:>{}}", cells[c], extraWidths[c]);
    return text;
  };
  size_t indexWidth = std::max<size_t>(1, fmt::formatted_size("{}", programs.size()));
  std::string out = fmt::format("{:>{}}  {:<{}}  {:>{}}  {:<4}{}  {:<{}}  {}\n", "#", indexWidth, "lines", linesWidth,
                                "ops", opsWidth, "dist", columns(kReshardHeadings), "pass", passWidth, "label");
  for (size_t i = 0; i < programs.size(); ++i) {
    const FoundProgram& p = programs[i];
    std::string label = terminalLine(p.label) + (p.closed ? "" : " (not closed: the file ends first)");
    out += fmt::format("{:>{}}  {:<{}}  {:>{}}  {:<4}{}  {:<{}}  {}", i + 1, indexWidth, lines[i], linesWidth,
                       p.opCount, opsWidth, p.distributed ? "yes" : "no", reshards ? columns(extra[i]) : "",
                       passes[i], passWidth, label);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  return out;
}

}  // namespace reshardctl
