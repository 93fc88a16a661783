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

// Passes on how far the diff has read each text (UnifiedDiffOptions::
// readPast), once either has moved kStep on: a few calls for a whole text.
class ReadProgress {
 public:
  ReadProgress(std::string_view before, std::string_view after, const UnifiedDiffOptions& options)
      : before_(before.data()), after_(after.data()), readPast_(options.readPast) {}

  void at(size_t before, size_t after) {
    if (!readPast_ || (before < told_[0] + kStep && after < told_[1] + kStep)) return;
    told_[0] = std::max(told_[0], before);
    told_[1] = std::max(told_[1], after);
    readPast_(told_[0], told_[1]);
  }

  // A new pass over the texts, from their starts (the hunks, after numbering).
  void restart() { told_[0] = told_[1] = 0; }

  // At these lines of the texts (null: that text has not moved on).
  void atLines(const std::string_view* before, const std::string_view* after) {
    at(before ? static_cast<size_t>(before->data() - before_) : told_[0],
       after ? static_cast<size_t>(after->data() - after_) : told_[1]);
  }

 private:
  static constexpr size_t kStep = size_t{2} << 20;
  const char* before_;
  const char* after_;
  const std::function<void(size_t, size_t)>& readPast_;
  size_t told_[2] = {0, 0};
};

// Each text's lines, with their terminators (so that a last line without
// '\n' differs from the same text with one: diff's "\ No newline at end of
// file"), and each line as a number, equal for equal lines: one pass over
// each text. The table of distinct lines goes when the numbers are made:
// the alignment and the script never hold it (40 bytes and more a line).
struct NumberedLines {
  std::vector<std::string_view> lines;
  std::vector<uint64_t> keys;
};

void numberLines(std::string_view before, std::string_view after, NumberedLines& a, NumberedLines& b,
                 ReadProgress& progress) {
  std::unordered_map<std::string_view, uint64_t> ids;
  auto number = [&](std::string_view text, NumberedLines& side, bool isBefore) {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      end = end == std::string_view::npos ? text.size() : end + 1;
      const std::string_view line = text.substr(start, end - start);
      side.lines.push_back(line);
      side.keys.push_back(ids.emplace(line, ids.size()).first->second);
      start = end;
      if (isBefore) progress.at(start, 0);
      else progress.at(before.size(), start);
    }
  };
  number(before, a, true);
  ids.reserve(2 * a.lines.size());  // the other text has about as many lines: grown once
  number(after, b, false);
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
             const UnifiedDiffOptions& options, ReadProgress& progress)
      : before_(before), after_(after), options_(options), palette_(options.color), progress_(progress) {}

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
      // One hunk can be both texts whole: the pages behind go as it is written.
      progress_.atLines(line.before < before_.size() ? &before_[line.before] : nullptr,
                        line.after < after_.size() ? &after_[line.after] : nullptr);
    }
  }

  const std::vector<std::string_view>& before_;
  const std::vector<std::string_view>& after_;
  UnifiedDiffOptions options_;
  Palette palette_;
  ReadProgress& progress_;
};

}  // namespace

std::function<void(size_t, size_t)> droppingPagesBehind(const SourceFile& before, size_t beforeBegin,
                                                        const SourceFile& after, size_t afterBegin) {
  return [&before, &after, beforeDropped = beforeBegin, afterDropped = afterBegin, beforeBegin, afterBegin](
             size_t beforeRead, size_t afterRead) mutable {
    // A new pass (the hunks) reads from the start again, and drops from there.
    if (beforeBegin + beforeRead < beforeDropped) beforeDropped = beforeBegin;
    if (afterBegin + afterRead < afterDropped) afterDropped = afterBegin;
    beforeDropped = before.dropPages(beforeDropped, beforeBegin + beforeRead);
    afterDropped = after.dropPages(afterDropped, afterBegin + afterRead);
  };
}

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& beforeLabel,
                        const std::string& afterLabel, const UnifiedDiffOptions& options) {
  OutputSink text;
  writeUnifiedDiff(before, after, beforeLabel, afterLabel, options, text);
  return text.take();
}

void writeUnifiedDiff(std::string_view before, std::string_view after, const std::string& beforeLabel,
                      const std::string& afterLabel, const UnifiedDiffOptions& options, OutputSink& out) {
  if (before == after) return;
  ReadProgress progress(before, after, options);
  NumberedLines a, b;
  numberLines(before, after, a, b, progress);
  std::vector<Line> script;
  script.reserve(a.keys.size() + b.keys.size());  // its most; a large block's untouched tail is never resident
  size_t i = 0, j = 0;
  for (const auto& [mi, mj] : alignSequences(a.keys, b.keys, lineAlignment(a.keys.size() + b.keys.size()))) {
    for (; i < mi; ++i) script.push_back({Edit::Remove, i, j});
    for (; j < mj; ++j) script.push_back({Edit::Add, i, j});
    script.push_back({Edit::Keep, i++, j++});
  }
  for (; i < a.keys.size(); ++i) script.push_back({Edit::Remove, i, j});
  for (; j < b.keys.size(); ++j) script.push_back({Edit::Add, i, j});
  a.keys = {};
  b.keys = {};
  progress.restart();
  HunkWriter(a.lines, b.lines, options, progress).write(script, beforeLabel, afterLabel, out);
}

}  // namespace reshardctl
