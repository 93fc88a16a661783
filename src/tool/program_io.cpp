#include "tool/program_io.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <functional>

#include <fmt/format.h>

#include "ir/verifier.h"
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

}  // namespace

LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diagnostics) {
  LoadedProgram loaded;
  std::string error;
  std::optional<size_t> limit = inputLimit(&error);
  std::optional<SourceFile> source;
  if (limit) source = SourceFile::load(path, &error, {*limit});
  if (!source) {
    diagnostics.error(error);
    loaded.failure = kExitUsage;
    return loaded;
  }
  loaded.source = std::make_unique<SourceFile>(std::move(*source));
  diagnostics.setSource(loaded.source.get());
  if (const auto& cutoff = loaded.source->cutoff()) {
    diagnostics.error(cutoff->offset, 1, cutoff->message);
    loaded.failure = kExitBadInput;
    return loaded;
  }
  ParseResult parsed = parseProgram(*loaded.source, diagnostics);
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

int writeOutput(const std::string& path, DiagnosticEngine& diagnostics,
                const std::function<bool(std::FILE*)>& render) {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  if (!out) {
    diagnostics.error(error);
    return kExitUsage;
  }
  // A failed write shows in commit(), which knows the reason.
  const bool rendered = render(out->stream());
  if (!out->commit(&error) || !rendered) {
    diagnostics.error(error.empty() ? "cannot write '" + path + "'" : error);
    return kExitUsage;
  }
  return kExitOk;
}

int writeProgram(const Program& program, const std::string& path, DiagnosticEngine& diagnostics) {
  return writeOutput(path, diagnostics, [&](std::FILE* out) { return printProgram(program, out); });
}

int writeTextOutput(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics) {
  return writeOutput(path, diagnostics, [&](std::FILE* out) {
    return std::fwrite(text.data(), 1, text.size(), out) == text.size();
  });
}

}  // namespace reshardctl
