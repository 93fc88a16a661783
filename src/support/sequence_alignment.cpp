#include "support/sequence_alignment.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace reshardctl {

namespace {

using Pairs = std::vector<std::pair<size_t, size_t>>;

// A fixed limit keeps the time linear in N+M (GNU diff lets it grow as the
// square root of N+M, which makes scattered differences cost N^1.5).
constexpr size_t kDefaultCostLimit = 256;

// Positions are signed: diagonals k = x - y run from -M to N.
using Index = std::ptrdiff_t;

struct Range {
  Index xBegin, xEnd, yBegin, yEnd;
  Index n() const { return xEnd - xBegin; }
  Index m() const { return yEnd - yBegin; }
};

struct Split {
  Index x, y;
};

class Aligner {
 public:
  Aligner(std::span<const uint64_t> a, std::span<const uint64_t> b, const AlignmentOptions& options,
          AlignmentStats& stats)
      : a_(a), b_(b), options_(options), stats_(stats), tracedBudget_(options.tracedBudget) {
    costLimit_ = options.exact ? std::numeric_limits<Index>::max()
                               : static_cast<Index>(options.costLimit ? options.costLimit : kDefaultCostLimit);
  }

  Pairs run() {
    // An explicit stack: heuristic splits can be lopsided, recursion deep.
    std::vector<Range> work{{0, static_cast<Index>(a_.size()), 0, static_cast<Index>(b_.size())}};
    while (!work.empty()) {
      Range r = work.back();
      work.pop_back();
      alignRange(r, work);
    }
    std::sort(pairs_.begin(), pairs_.end());
    return std::move(pairs_);
  }

 private:
  // Matches what it can of `r` and leaves the rest on `work`.
  void alignRange(Range r, std::vector<Range>& work) {
    while (r.xBegin < r.xEnd && r.yBegin < r.yEnd && equal(r.xBegin, r.yBegin)) match(r.xBegin++, r.yBegin++);
    while (r.xBegin < r.xEnd && r.yBegin < r.yEnd && equal(r.xEnd - 1, r.yEnd - 1)) match(--r.xEnd, --r.yEnd);
    if (r.xBegin == r.xEnd || r.yBegin == r.yEnd) return;  // only insertions or deletions left
    const bool small = static_cast<size_t>(r.n() + r.m()) <= options_.tracedWindow;
    if (small && traced(r)) return;
    if (options_.uniqueKeySplit && splitAtUniqueKeys(r, work)) return;
    if (!small) splitAtMiddleSnake(r, work);
  }

  bool equal(Index x, Index y) {
    ++stats_.comparisons;
    return a_[static_cast<size_t>(x)] == b_[static_cast<size_t>(y)];
  }
  void match(Index x, Index y) { pairs_.emplace_back(static_cast<size_t>(x), static_cast<size_t>(y)); }

  // --- The traced search -------------------------------------------------

  // Myers' greedy forward search, keeping each step's furthest points for
  // the path back; false (and nothing matched) past the edit-distance cap or
  // the budget.
  bool traced(const Range& r) {
    const Index n = r.n(), m = r.m();
    const Index maxD = std::min<Index>(n + m, static_cast<Index>(options_.maxTracedEdits));
    std::vector<std::vector<Index>> trace;  // trace[d][k + d]: furthest x on diagonal k after d edits
    std::vector<Index> v(static_cast<size_t>(2 * maxD + 3), 0);
    const Index offset = maxD + 1;
    auto at = [&](Index k) -> Index& { return v[static_cast<size_t>(offset + k)]; };
    size_t steps = 0;
    for (Index d = 0; d <= maxD; ++d) {
      for (Index k = -d; k <= d; k += 2) {
        const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
        Index x = down ? at(k + 1) : at(k - 1) + 1;
        Index y = x - k;
        while (x < n && y < m && equal(r.xBegin + x, r.yBegin + y)) ++x, ++y, ++steps;
        at(k) = x;
        ++steps;
        if (x >= n && y >= m) {
          trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
          backtrack(r, trace, n, m);
          tracedBudget_ -= std::min(tracedBudget_, steps);
          ++stats_.tracedRanges;
          return true;
        }
      }
      trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
      if (steps > tracedBudget_) break;
    }
    tracedBudget_ -= std::min(tracedBudget_, steps);
    return false;
  }

  // Walks the trace back from (x, y), matching the snakes on the way.
  void backtrack(const Range& r, const std::vector<std::vector<Index>>& trace, Index x, Index y) {
    for (Index d = static_cast<Index>(trace.size()) - 1; d > 0; --d) {
      const std::vector<Index>& previous = trace[static_cast<size_t>(d - 1)];  // diagonals -(d-1)..d-1
      auto at = [&](Index k) { return previous[static_cast<size_t>(k + d - 1)]; };
      const Index k = x - y;
      const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
      const Index prevK = down ? k + 1 : k - 1;
      const Index prevX = at(prevK), prevY = prevX - prevK;
      const Index startX = down ? prevX : prevX + 1;  // where the snake began
      while (x > startX) --x, --y, match(r.xBegin + x, r.yBegin + y);
      x = prevX, y = prevY;
    }
    while (x > 0 && y > 0) --x, --y, match(r.xBegin + x, r.yBegin + y);
  }

  // --- The patience split ------------------------------------------------

  // Keys that occur exactly once on each side, kept in the longest run
  // increasing on both sides: matched, and the gaps between them queued.
  bool splitAtUniqueKeys(const Range& r, std::vector<Range>& work) {
    struct Count {
      uint32_t inA = 0, inB = 0;
      Index atA = 0, atB = 0;
    };
    std::unordered_map<uint64_t, Count> counts;
    for (Index i = r.xBegin; i < r.xEnd; ++i) {
      Count& c = counts[a_[static_cast<size_t>(i)]];
      ++c.inA, c.atA = i;
    }
    for (Index j = r.yBegin; j < r.yEnd; ++j) {
      auto it = counts.find(b_[static_cast<size_t>(j)]);
      if (it != counts.end()) ++it->second.inB, it->second.atB = j;
    }
    std::vector<Split> unique;
    for (Index i = r.xBegin; i < r.xEnd; ++i) {
      const Count& c = counts[a_[static_cast<size_t>(i)]];
      if (c.inA == 1 && c.inB == 1) unique.push_back({i, c.atB});
    }
    const std::vector<Split> anchors = longestIncreasing(unique);
    if (anchors.empty()) return false;
    ++stats_.uniqueKeySplits;
    Index x = r.xBegin, y = r.yBegin;
    for (const Split& anchor : anchors) {
      work.push_back({x, anchor.x, y, anchor.y});
      match(anchor.x, anchor.y);
      x = anchor.x + 1, y = anchor.y + 1;
    }
    work.push_back({x, r.xEnd, y, r.yEnd});
    return true;
  }

  // Patience sorting: the longest subsequence of `points` (increasing in x)
  // whose y also increases.
  static std::vector<Split> longestIncreasing(const std::vector<Split>& points) {
    std::vector<size_t> tails;  // index into points of the smallest tail of each length
    std::vector<size_t> previous(points.size(), SIZE_MAX);
    for (size_t i = 0; i < points.size(); ++i) {
      auto pos = std::lower_bound(tails.begin(), tails.end(), points[i].y,
                                  [&](size_t t, Index value) { return points[t].y < value; });
      if (pos != tails.begin()) previous[i] = *(pos - 1);
      if (pos == tails.end()) tails.push_back(i);
      else *pos = i;
    }
    std::vector<Split> chain;
    for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = previous[i]) chain.push_back(points[i]);
    std::reverse(chain.begin(), chain.end());
    return chain;
  }

  // --- The linear-space search -------------------------------------------

  void splitAtMiddleSnake(const Range& r, std::vector<Range>& work) {
    if (forward_.empty()) {
      const size_t diagonals = a_.size() + b_.size() + 3;
      forward_.assign(diagonals, 0);
      backward_.assign(diagonals, 0);
      offset_ = static_cast<Index>(b_.size()) + 1;
    }
    Split mid = split(r);
    // Both halves must be smaller; a split at a corner would loop forever
    // (it cannot happen: the search always moves). Left unpaired instead.
    if ((mid.x == r.xBegin && mid.y == r.yBegin) || (mid.x == r.xEnd && mid.y == r.yEnd)) return;
    work.push_back({mid.x, r.xEnd, mid.y, r.yEnd});
    work.push_back({r.xBegin, mid.x, r.yBegin, mid.y});
  }

  Index& fwd(Index k) { return forward_[static_cast<size_t>(k + offset_)]; }
  Index& bwd(Index k) { return backward_[static_cast<size_t>(k + offset_)]; }

  // A point on a shortest edit script of `r` (the end of its middle snake),
  // strictly inside r so both halves are smaller. r has no equal ends.
  Split split(const Range& r) {
    const Index kMin = r.xBegin - r.yEnd, kMax = r.xEnd - r.yBegin;
    const Index fMid = r.xBegin - r.yBegin, bMid = r.xEnd - r.yEnd;
    const bool odd = ((fMid - bMid) & 1) != 0;
    Index fLo = fMid, fHi = fMid, bLo = bMid, bHi = bMid;
    fwd(fMid) = r.xBegin;
    bwd(bMid) = r.xEnd;
    for (Index cost = 1;; ++cost) {
      // Forward: one more edit on each diagonal in reach, then follow the snake.
      if (fLo > kMin) fwd(--fLo - 1) = -1; else ++fLo;
      if (fHi < kMax) fwd(++fHi + 1) = -1; else --fHi;
      for (Index k = fHi; k >= fLo; k -= 2) {
        Index x = fwd(k - 1) >= fwd(k + 1) ? fwd(k - 1) + 1 : fwd(k + 1);
        Index y = x - k;
        ++stats_.diagonalSteps;
        while (x < r.xEnd && y < r.yEnd && equal(x, y)) ++x, ++y;
        fwd(k) = x;
        if (odd && bLo <= k && k <= bHi && bwd(k) <= x) return {x, y};
      }
      // Backward, from the end.
      if (bLo > kMin) bwd(--bLo - 1) = std::numeric_limits<Index>::max(); else ++bLo;
      if (bHi < kMax) bwd(++bHi + 1) = std::numeric_limits<Index>::max(); else --bHi;
      for (Index k = bHi; k >= bLo; k -= 2) {
        Index x = bwd(k - 1) < bwd(k + 1) ? bwd(k - 1) : bwd(k + 1) - 1;
        Index y = x - k;
        ++stats_.diagonalSteps;
        while (x > r.xBegin && y > r.yBegin && equal(x - 1, y - 1)) --x, --y;
        bwd(k) = x;
        if (!odd && fLo <= k && k <= fHi && x <= fwd(k)) return {x, y};
      }
      if (cost >= costLimit_) {
        ++stats_.heuristicSplits;
        return furthest(r, fLo, fHi, bLo, bHi);
      }
    }
  }

  // The heuristic split: the point, forward or backward, that got furthest
  // from where its search began (measured in x + y).
  Split furthest(const Range& r, Index fLo, Index fHi, Index bLo, Index bHi) {
    Index fBest = -1, fBestX = r.xBegin;
    for (Index k = fHi; k >= fLo; k -= 2) {
      Index x = std::min(fwd(k), r.xEnd), y = x - k;
      if (y > r.yEnd) x = r.yEnd + k, y = r.yEnd;
      if (x + y > fBest) fBest = x + y, fBestX = x;
    }
    Index bBest = std::numeric_limits<Index>::max(), bBestX = r.xEnd;
    for (Index k = bHi; k >= bLo; k -= 2) {
      Index x = std::max(r.xBegin, bwd(k)), y = x - k;
      if (y < r.yBegin) x = r.yBegin + k, y = r.yBegin;
      if (x + y < bBest) bBest = x + y, bBestX = x;
    }
    if ((r.xEnd + r.yEnd) - bBest < fBest - (r.xBegin + r.yBegin)) return {fBestX, fBest - fBestX};
    return {bBestX, bBest - bBestX};
  }

  std::span<const uint64_t> a_, b_;
  const AlignmentOptions& options_;
  AlignmentStats& stats_;
  size_t tracedBudget_;
  Index costLimit_ = 0;
  Pairs pairs_;
  std::vector<Index> forward_, backward_;  // furthest x per diagonal (allocated on first use)
  Index offset_ = 0;
};

}  // namespace

Pairs alignSequences(std::span<const uint64_t> a, std::span<const uint64_t> b, const AlignmentOptions& options,
                     AlignmentStats* stats) {
  AlignmentStats ignored;
  return Aligner(a, b, options, stats ? *stats : ignored).run();
}

}  // namespace reshardctl
