#include "report/unified_diff.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "support/escape.h"
#include "support/palette.h"

namespace reshardctl {

namespace {

using Matches = std::vector<std::pair<size_t, size_t>>;

constexpr size_t kSmallRange = 4096;       // lines of both sides: Myers first
constexpr int64_t kMaxEditDistance = 2048;  // Myers' trace holds about D^2 entries
constexpr size_t kBaseBudget = 4u << 20;    // steps of Myers allowed besides...
constexpr size_t kBudgetPerLine = 64;       // ...these per input line

struct Range {
  size_t a0, a1, b0, b1;
  size_t n() const { return a1 - a0; }
  size_t m() const { return b1 - b0; }
};

class LineMatcher {
 public:
  LineMatcher(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b)
      : a_(a), b_(b), budget_(kBaseBudget + kBudgetPerLine * (a.size() + b.size())) {}

  Matches run() {
    std::vector<Range> work = {{0, a_.size(), 0, b_.size()}};
    while (!work.empty()) {
      Range range = work.back();
      work.pop_back();
      matchRange(range, work);
    }
    std::sort(matches_.begin(), matches_.end());
    return std::move(matches_);
  }

 private:
  // Matches what it can of `range` and leaves the rest on `work`.
  void matchRange(Range r, std::vector<Range>& work) {
    while (r.a0 < r.a1 && r.b0 < r.b1 && a_[r.a0] == b_[r.b0]) matches_.emplace_back(r.a0++, r.b0++);
    while (r.a0 < r.a1 && r.b0 < r.b1 && a_[r.a1 - 1] == b_[r.b1 - 1]) matches_.emplace_back(--r.a1, --r.b1);
    if (r.n() == 0 || r.m() == 0) return;
    const bool small = r.n() + r.m() <= kSmallRange;
    if (small && myers(r)) return;
    if (splitAtUniqueLines(r, work)) return;
    if (!small) myers(r);  // else: nothing in common that is affordable: removed and added whole
  }

  // Myers' greedy forward search with a trace for the path back; false (and
  // nothing matched) past the edit-distance cap or the work budget.
  bool myers(const Range& r) {
    const int64_t n = static_cast<int64_t>(r.n()), m = static_cast<int64_t>(r.m());
    const int64_t maxD = std::min<int64_t>(n + m, kMaxEditDistance);
    std::vector<std::vector<int64_t>> trace;  // trace[d][k + d]: furthest x on diagonal k after d edits
    std::vector<int64_t> v(static_cast<size_t>(2 * maxD + 3), 0);
    const int64_t offset = maxD + 1;
    size_t steps = 0;
    for (int64_t d = 0; d <= maxD; ++d) {
      for (int64_t k = -d; k <= d; k += 2) {
        const bool down = k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]);
        int64_t x = down ? v[offset + k + 1] : v[offset + k - 1] + 1;
        int64_t y = x - k;
        while (x < n && y < m && a_[r.a0 + x] == b_[r.b0 + y]) ++x, ++y, ++steps;
        v[offset + k] = x;
        ++steps;
        if (x >= n && y >= m) {
          trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
          backtrack(r, trace, n, m);
          budget_ -= std::min(budget_, steps);
          return true;
        }
      }
      trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
      if (steps > budget_) break;
    }
    budget_ -= std::min(budget_, steps);
    return false;
  }

  void backtrack(const Range& r, const std::vector<std::vector<int64_t>>& trace, int64_t x, int64_t y) {
    for (int64_t d = static_cast<int64_t>(trace.size()) - 1; d > 0; --d) {
      const std::vector<int64_t>& previous = trace[static_cast<size_t>(d - 1)];  // diagonals -(d-1)..d-1
      auto at = [&](int64_t k) { return previous[static_cast<size_t>(k + d - 1)]; };
      const int64_t k = x - y;
      const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
      const int64_t prevK = down ? k + 1 : k - 1;
      const int64_t prevX = at(prevK), prevY = prevX - prevK;
      const int64_t startX = down ? prevX : prevX + 1;  // where the snake began
      while (x > startX) {
        --x, --y;
        matches_.emplace_back(r.a0 + static_cast<size_t>(x), r.b0 + static_cast<size_t>(y));
      }
      x = prevX, y = prevY;
    }
    while (x > 0 && y > 0) {
      --x, --y;
      matches_.emplace_back(r.a0 + static_cast<size_t>(x), r.b0 + static_cast<size_t>(y));
    }
  }

  // Lines that occur exactly once on each side, kept in the longest run
  // increasing on both sides: matched, and the gaps between them queued.
  bool splitAtUniqueLines(const Range& r, std::vector<Range>& work) {
    struct Count {
      uint32_t inA = 0, inB = 0;
      size_t atA = 0, atB = 0;
    };
    std::unordered_map<uint32_t, Count> counts;
    for (size_t i = r.a0; i < r.a1; ++i) {
      Count& c = counts[a_[i]];
      ++c.inA, c.atA = i;
    }
    for (size_t j = r.b0; j < r.b1; ++j) {
      auto it = counts.find(b_[j]);
      if (it != counts.end()) ++it->second.inB, it->second.atB = j;
    }
    Matches unique;
    for (size_t i = r.a0; i < r.a1; ++i) {
      const Count& c = counts[a_[i]];
      if (c.inA == 1 && c.inB == 1) unique.emplace_back(i, c.atB);
    }
    const Matches anchors = longestIncreasing(unique);
    if (anchors.empty()) return false;
    size_t a = r.a0, b = r.b0;
    for (const auto& [i, j] : anchors) {
      work.push_back({a, i, b, j});
      matches_.emplace_back(i, j);
      a = i + 1, b = j + 1;
    }
    work.push_back({a, r.a1, b, r.b1});
    return true;
  }

  // Patience sorting: the longest subsequence of `pairs` (increasing in
  // .first) whose .second also increases.
  static Matches longestIncreasing(const Matches& pairs) {
    std::vector<size_t> tails;  // index into pairs of the smallest tail of each length
    std::vector<size_t> previous(pairs.size(), SIZE_MAX);
    for (size_t i = 0; i < pairs.size(); ++i) {
      auto pos = std::lower_bound(tails.begin(), tails.end(), pairs[i].second,
                                  [&](size_t t, size_t value) { return pairs[t].second < value; });
      if (pos != tails.begin()) previous[i] = *(pos - 1);
      if (pos == tails.end()) tails.push_back(i);
      else *pos = i;
    }
    Matches chain;
    for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = previous[i]) chain.push_back(pairs[i]);
    std::reverse(chain.begin(), chain.end());
    return chain;
  }

  const std::vector<uint32_t>& a_;
  const std::vector<uint32_t>& b_;
  size_t budget_;
  Matches matches_;
};

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

  std::string write(const std::vector<Line>& script, const std::string& beforeLabel, const std::string& afterLabel) {
    const char* header = palette_(Ink::DiffHeader);
    std::string out = fmt::format("{}--- {}{}\n{}+++ {}{}\n", header, diffHeaderName(beforeLabel), palette_.reset(),
                                  header, diffHeaderName(afterLabel), palette_.reset());
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
      out += hunk(script, first, last);
      i = last;
    }
    return out;
  }

 private:
  // "-12,7" as GNU diff writes it: a count of 1 is left out; an empty side
  // names the line before it.
  static std::string rangeText(size_t start, size_t count) {
    if (count == 1) return std::to_string(start + 1);
    return fmt::format("{},{}", count == 0 ? start : start + 1, count);
  }

  std::string hunk(const std::vector<Line>& script, size_t first, size_t last) {
    size_t beforeCount = 0, afterCount = 0;
    std::string body;
    for (size_t j = first; j < last; ++j) {
      const Line& line = script[j];
      const std::string_view text = line.edit == Edit::Add ? after_[line.after] : before_[line.before];
      beforeCount += line.edit != Edit::Add ? 1 : 0;
      afterCount += line.edit != Edit::Remove ? 1 : 0;
      const char* color = line.edit == Edit::Remove ? palette_(Ink::DiffRemoved)
                          : line.edit == Edit::Add  ? palette_(Ink::DiffAdded)
                                                    : "";
      const bool newline = !text.empty() && text.back() == '\n';
      const std::string_view content = newline ? text.substr(0, text.size() - 1) : text;
      body += fmt::format("{}{}{}{}\n", color, static_cast<char>(line.edit), content, *color ? palette_.reset() : "");
      if (!newline) body += "\\ No newline at end of file\n";
    }
    return fmt::format("{}@@ -{} +{} @@{}\n", palette_(Ink::DiffHunk), rangeText(script[first].before, beforeCount),
                       rangeText(script[first].after, afterCount), palette_.reset()) +
           body;
  }

  const std::vector<std::string_view>& before_;
  const std::vector<std::string_view>& after_;
  UnifiedDiffOptions options_;
  Palette palette_;
};

}  // namespace

Matches matchLines(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  return LineMatcher(a, b).run();
}

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& beforeLabel,
                        const std::string& afterLabel, const UnifiedDiffOptions& options) {
  if (before == after) return "";
  const std::vector<std::string_view> beforeLines = splitLines(before), afterLines = splitLines(after);
  std::unordered_map<std::string_view, uint32_t> ids;
  auto idsOf = [&](const std::vector<std::string_view>& lines) {
    std::vector<uint32_t> out;
    out.reserve(lines.size());
    for (std::string_view line : lines) out.push_back(ids.emplace(line, static_cast<uint32_t>(ids.size())).first->second);
    return out;
  };
  const std::vector<uint32_t> a = idsOf(beforeLines), b = idsOf(afterLines);
  std::vector<Line> script;
  size_t i = 0, j = 0;
  for (const auto& [mi, mj] : matchLines(a, b)) {
    for (; i < mi; ++i) script.push_back({Edit::Remove, i, j});
    for (; j < mj; ++j) script.push_back({Edit::Add, i, j});
    script.push_back({Edit::Keep, i++, j++});
  }
  for (; i < a.size(); ++i) script.push_back({Edit::Remove, i, j});
  for (; j < b.size(); ++j) script.push_back({Edit::Add, i, j});
  return HunkWriter(beforeLines, afterLines, options).write(script, beforeLabel, afterLabel);
}

}  // namespace reshardctl
