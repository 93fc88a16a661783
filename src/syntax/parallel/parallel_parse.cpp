#include "syntax/parallel/parallel_parse.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "support/parallel_jobs.h"
#include "support/text.h"
#include "syntax/graph_builder.h"
#include "syntax/parallel/chunk_stitch.h"
#include "syntax/parallel/parse_chunk.h"

namespace reshardctl {

namespace {

using parsing::ChunkKind;
using parsing::ChunkSpec;
using parsing::ParsedChunk;

// The program's `{` is looked for in its first lines only (after the module
// op's line): text that opens otherwise is parsed serially.
constexpr int kOpeningLines = 4;
// Lines after a cut looked at for the chunk's first %N (its numbering hint).
constexpr int kHintLines = 8;

// How the top-level op lines of a program look: every one starts a line
// with the first op line's indentation and then `(`. Deeper ops are indented
// further (or, in the 2023 layout, alike: a cut inside a region makes its
// chunk fail, and the serial parse reads the program).
struct OpLines {
  std::string_view text;
  std::string_view indent;
  size_t first = 0;  // where the first op line starts
  IndentStyle style = IndentStyle::PerLevel;

  // Whether a top-level op line starts right after the newline at `newline`.
  bool opLineAfter(size_t newline) const {
    size_t open = newline + 1 + indent.size();
    return open < text.size() && text[open] == '(' && text.compare(newline + 1, indent.size(), indent) == 0;
  }

  // The cut before the op line starting at `lineStart`: the newline that
  // ends the op line before it. Its trailing blanks stay with that op, the
  // lines of blanks between go with the next (they are its gap: the blank
  // lines it keeps, its indentation). npos, no cut, when an empty line is
  // among them: whether it is kept depends on the op before
  // (parsing::followsGenericRegionOp), which the next chunk does not see.
  size_t cutBefore(size_t lineStart) const {
    size_t content = lineStart;
    while (content > first && isBlankChar(text[content - 1])) --content;
    size_t cut = text.find('\n', content);
    if (cut != std::string_view::npos && cut < lineStart && holdsEmptyLine(text.substr(cut, lineStart - cut)))
      return std::string_view::npos;
    return cut;
  }
  // `gap`: newline-ended lines after a newline.
  static bool holdsEmptyLine(std::string_view gap) {
    for (size_t at = 0, next; (next = gap.find('\n', at + 1)) != std::string_view::npos; at = next) {
      std::string_view line = gap.substr(at + 1, next - at - 1);
      if (line.empty() || line == "\r") return true;
    }
    return false;
  }

  // The %N the op line after `newline` (or one of the few after it) defines
  // first; 0 when none shows one.
  uint32_t numberHint(size_t newline) const {
    for (int line = 0; line < kHintLines && newline != std::string_view::npos; ++line) {
      size_t name = newline + 1 + indent.size() + 1;  // after `(`
      size_t close = text.find_first_of(",)", name);
      if (close != std::string_view::npos) {
        if (std::optional<uint32_t> number = parsing::numberOf(text.substr(name, close - name))) return *number;
      }
      newline = text.find('\n', newline + 1);
    }
    return 0;
  }
};

// The first op line after the program's `{` line, or nullopt.
std::optional<OpLines> findOpLines(std::string_view text) {
  size_t line = 0;
  bool opened = false;
  for (int n = 0; n < kOpeningLines && !opened; ++n) {
    size_t lineEnd = text.find('\n', line);
    if (lineEnd == std::string_view::npos) return std::nullopt;
    opened = trim(text.substr(line, lineEnd - line)) == "{";
    line = lineEnd + 1;
  }
  if (!opened) return std::nullopt;
  // Lines of blanks and the body's arguments (`^kw:` ...) before the first op.
  while (line < text.size() && text.find_first_not_of(" \t", line) != std::string_view::npos &&
         text[text.find_first_not_of(" \t", line)] != '(') {
    size_t lineEnd = text.find('\n', line);
    if (lineEnd == std::string_view::npos) return std::nullopt;
    line = lineEnd + 1;
  }
  size_t open = text.find_first_not_of(" \t", line);
  if (open == std::string_view::npos || text[open] != '(') return std::nullopt;
  OpLines lines{text, text.substr(line, open - line), line};
  lines.style = lines.indent == " " ? IndentStyle::LeadingSpace : IndentStyle::PerLevel;  // noteTopLevelIndent
  return lines;
}

struct Cut {
  size_t at;  // a newline ending an op line: the next chunk starts with it
  uint32_t numberHint;
};

// `parts` chunks of about equal size: each cut at the first op line after
// its share of the text.
std::vector<Cut> cutBySize(const OpLines& lines, size_t parts) {
  std::vector<Cut> cuts;
  size_t from = lines.first;
  for (size_t i = 1; i < parts; ++i) {
    size_t newline = std::max(from, lines.text.size() / parts * i);
    while ((newline = lines.text.find('\n', newline)) != std::string_view::npos && !lines.opLineAfter(newline))
      ++newline;
    if (newline == std::string_view::npos) break;
    size_t cut = lines.cutBefore(newline + 1);
    if (cut != std::string_view::npos && cut > lines.first && (cuts.empty() || cut > cuts.back().at))
      cuts.push_back(Cut{cut, lines.numberHint(newline)});
    from = newline + 1;
  }
  return cuts;
}

// A cut before every `opsPerChunk`-th top-level op line (tests: small
// programs cut into many chunks).
std::vector<Cut> cutByOps(const OpLines& lines, size_t opsPerChunk) {
  std::vector<Cut> cuts;
  size_t ops = 1;  // the first op line
  for (size_t newline = lines.text.find('\n', lines.first); newline != std::string_view::npos;
       newline = lines.text.find('\n', newline + 1)) {
    if (!lines.opLineAfter(newline) || ops++ % opsPerChunk != 0) continue;
    size_t cut = lines.cutBefore(newline + 1);
    if (cut != std::string_view::npos && cut > lines.first && (cuts.empty() || cut > cuts.back().at))
      cuts.push_back(Cut{cut, lines.numberHint(newline)});
  }
  return cuts;
}

std::vector<ChunkSpec> chunkSpecs(const OpLines& lines, const std::vector<Cut>& cuts, size_t begin,
                                  const ParseOptions& options) {
  std::vector<ChunkSpec> specs(cuts.size() + 1);
  for (size_t i = 0; i < specs.size(); ++i) {
    ChunkSpec& spec = specs[i];
    spec.begin = begin + (i == 0 ? 0 : cuts[i - 1].at);
    spec.end = begin + (i == cuts.size() ? lines.text.size() : cuts[i].at);
    spec.kind = i == 0 ? ChunkKind::First : i == cuts.size() ? ChunkKind::Last : ChunkKind::Middle;
    spec.indent = lines.style;
    spec.numberHint = i == 0 ? 0 : cuts[i - 1].numberHint;
    spec.recogniseRepeatedAttributes = options.recogniseRepeatedAttributes;
  }
  return specs;
}

}  // namespace

std::optional<ParseResult> parseInParallel(SourceFile& source, size_t begin, size_t end, const ParseOptions& options) {
  if (options.fragment) return std::nullopt;
  unsigned jobs = options.jobs != 0 ? options.jobs : jobsFor(end - begin, kParallelParseBytes);
  if (jobs <= 1 && options.opsPerChunk == 0) return std::nullopt;
  std::optional<OpLines> lines = findOpLines(source.text().substr(begin, end - begin));
  if (!lines) return std::nullopt;
  std::vector<Cut> cuts = options.opsPerChunk ? cutByOps(*lines, options.opsPerChunk) : cutBySize(*lines, jobs);
  if (cuts.empty()) return std::nullopt;
  std::vector<ChunkSpec> specs = chunkSpecs(*lines, cuts, begin, options);
  std::vector<std::unique_ptr<ParsedChunk>> chunks(specs.size());
  runOnThreads(specs.size(), std::max(jobs, 1u), [&](size_t i) { chunks[i] = parsing::parseChunk(source, specs[i]); });
  std::unique_ptr<Program> program = parsing::stitchChunks(chunks, lines->style);
  if (!program) return std::nullopt;
  ParseResult result;
  result.program = std::move(program);
  result.chunks = specs.size();
  return result;
}

}  // namespace reshardctl
