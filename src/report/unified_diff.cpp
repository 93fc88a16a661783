#include "report/unified_diff.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "support/escape.h"
#include "support/palette.h"
#include "support/sequence_alignment.h"

namespace reshardctl {

namespace {

// The line diff's use of the engine: the shortest script where the texts
// differ little, else first a split at lines that occur once in each text.
AlignmentOptions lineAlignment(size_t lines) {
  AlignmentOptions options;
  options.tracedWindow = 4096;    // lines of both sides: the traced search first
  options.maxTracedEdits = 2048;  // its trace holds about D^2 entries
  options.tracedBudget = (4u << 20) + 64 * lines;  // steps allowed besides these per input line
  options.uniqueKeySplit = true;
  return options;
}

// Lines with their terminators, so that a last line without '\n' differs
// from the same text with one (diff's "\ No newline at end of file").
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// Each line as a number, equal for equal lines. The table of distinct lines
// goes when the numbers are made: the alignment and the script never hold it
// (40 bytes and more a line).
void lineKeys(const std::vector<std::string_view>& before, const std::vector<std::string_view>& after,
              std::vector<uint64_t>& a, std::vector<uint64_t>& b) {
  std::unordered_map<std::string_view, uint64_t> ids;
  ids.reserve(before.size() + after.size());
  auto keysOf = [&](const std::vector<std::string_view>& lines, std::vector<uint64_t>& keys) {
    keys.reserve(lines.size());
    for (std::string_view line : lines) keys.push_back(ids.emplace(line, ids.size()).first->second);
  };
  keysOf(before, a);
  keysOf(after, b);
}

enum class Edit : char { Keep = ' ', Remove = '-', Add = '+' };

// One line of the edit script. `before` and `after` count the lines of each
// side that come before it, so a Keep or Remove line is before[before] and a
// Keep or Add line is after[after].
struct Line {
  Edit edit;
  size_t before;
  size_t after;
};

class HunkWriter {
 public:
  HunkWriter(const std::vector<std::string_view>& before, const std::vector<std::string_view>& after,
             const UnifiedDiffOptions& options)
      : before_(before), after_(after), options_(options), palette_(options.color) {}

  // Hunk by hunk to `out`: the diff is never held whole.
  void write(const std::vector<Line>& script, const std::string& beforeLabel, const std::string& afterLabel,
             OutputSink& out) {
    const char* header = palette_(Ink::DiffHeader);
    out += fmt::format("{}--- {}{}\n{}+++ {}{}\n", header, diffHeaderName(beforeLabel), palette_.reset(), header,
                       diffHeaderName(afterLabel), palette_.reset());
    size_t i = 0;
    while (i < script.size()) {
      while (i < script.size() && script[i].edit == Edit::Keep) ++i;
      if (i == script.size()) break;
      // A hunk: `context` lines before this change, every change up to the
      // first run of more than 2*context kept lines, `context` lines after.
      const size_t first = i >= options_.context ? i - options_.context : 0;
      size_t end = i, kept = 0;
      for (size_t j = i; j < script.size() && kept <= 2 * options_.context; ++j) {
        kept = script[j].edit == Edit::Keep ? kept + 1 : 0;
        if (script[j].edit != Edit::Keep) end = j + 1;
      }
      const size_t last = std::min(script.size(), end + options_.context);
      hunk(script, first, last, out);
      i = last;
    }
  }

 private:
  // "-12,7" as GNU diff writes it: a count of 1 is left out; an empty side
  // names the line before it.
  static std::string rangeText(size_t start, size_t count) {
    if (count == 1) return std::to_string(start + 1);
    return fmt::format("{},{}", count == 0 ? start : start + 1, count);
  }

  // The counts first, then each line straight to `out`: one hunk can be the
  // whole of both texts (every line renumbered).
  void hunk(const std::vector<Line>& script, size_t first, size_t last, OutputSink& out) {
    size_t beforeCount = 0, afterCount = 0;
    for (size_t j = first; j < last; ++j) {
      beforeCount += script[j].edit != Edit::Add ? 1 : 0;
      afterCount += script[j].edit != Edit::Remove ? 1 : 0;
    }
    out += fmt::format("{}@@ -{} +{} @@{}\n", palette_(Ink::DiffHunk),
                       rangeText(script[first].before + options_.beforeFirstLine - 1, beforeCount),
                       rangeText(script[first].after + options_.afterFirstLine - 1, afterCount), palette_.reset());
    for (size_t j = first; j < last; ++j) {
      const Line& line = script[j];
      const std::string_view text = line.edit == Edit::Add ? after_[line.after] : before_[line.before];
      const char* color = line.edit == Edit::Remove ? palette_(Ink::DiffRemoved)
                          : line.edit == Edit::Add  ? palette_(Ink::DiffAdded)
                                                    : "";
      const bool newline = !text.empty() && text.back() == '\n';
      out += color;
      out += static_cast<char>(line.edit);
      out += newline ? text.substr(0, text.size() - 1) : text;
      if (*color) out += palette_.reset();
      out += '\n';
      if (!newline) out += "\\ No newline at end of file\n";
    }
  }

  const std::vector<std::string_view>& before_;
  const std::vector<std::string_view>& after_;
  UnifiedDiffOptions options_;
  Palette palette_;
};

}  // namespace

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& beforeLabel,
                        const std::string& afterLabel, const UnifiedDiffOptions& options) {
  OutputSink text;
  writeUnifiedDiff(before, after, beforeLabel, afterLabel, options, text);
  return text.take();
}

void writeUnifiedDiff(std::string_view before, std::string_view after, const std::string& beforeLabel,
                      const std::string& afterLabel, const UnifiedDiffOptions& options, OutputSink& out) {
  if (before == after) return;
  const std::vector<std::string_view> beforeLines = splitLines(before), afterLines = splitLines(after);
  std::vector<uint64_t> a, b;
  lineKeys(beforeLines, afterLines, a, b);
  std::vector<Line> script;
  script.reserve(a.size() + b.size());  // its most; a large block's untouched tail is never resident
  size_t i = 0, j = 0;
  for (const auto& [mi, mj] : alignSequences(a, b, lineAlignment(a.size() + b.size()))) {
    for (; i < mi; ++i) script.push_back({Edit::Remove, i, j});
    for (; j < mj; ++j) script.push_back({Edit::Add, i, j});
    script.push_back({Edit::Keep, i++, j++});
  }
  for (; i < a.size(); ++i) script.push_back({Edit::Remove, i, j});
  for (; j < b.size(); ++j) script.push_back({Edit::Add, i, j});
  HunkWriter(beforeLines, afterLines, options).write(script, beforeLabel, afterLabel, out);
}

}  // namespace reshardctl
