#include "passes/sequence_alignment.h"

#include <algorithm>
#include <limits>

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
};

struct Split {
  Index x, y;
};

class Aligner {
 public:
  Aligner(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b, const AlignmentOptions& options,
          AlignmentStats& stats)
      : a_(a), b_(b), stats_(stats) {
    const Index diagonals = static_cast<Index>(a.size() + b.size()) + 3;
    forward_.assign(static_cast<size_t>(diagonals), 0);
    backward_.assign(static_cast<size_t>(diagonals), 0);
    offset_ = static_cast<Index>(b.size()) + 1;
    costLimit_ = options.exact ? std::numeric_limits<Index>::max()
                               : static_cast<Index>(options.costLimit ? options.costLimit : kDefaultCostLimit);
  }

  Pairs run() {
    Pairs pairs;
    // An explicit stack: heuristic splits can be lopsided, recursion deep.
    std::vector<Range> work{{0, static_cast<Index>(a_.size()), 0, static_cast<Index>(b_.size())}};
    while (!work.empty()) {
      Range r = work.back();
      work.pop_back();
      while (r.xBegin < r.xEnd && r.yBegin < r.yEnd && equal(r.xBegin, r.yBegin)) {
        pairs.emplace_back(r.xBegin++, r.yBegin++);
      }
      while (r.xBegin < r.xEnd && r.yBegin < r.yEnd && equal(r.xEnd - 1, r.yEnd - 1)) {
        pairs.emplace_back(--r.xEnd, --r.yEnd);
      }
      if (r.xBegin == r.xEnd || r.yBegin == r.yEnd) continue;  // only insertions or deletions left
      Split mid = split(r);
      // Both halves must be smaller; a split at a corner would loop forever
      // (it cannot happen: the search always moves). Left unpaired instead.
      if ((mid.x == r.xBegin && mid.y == r.yBegin) || (mid.x == r.xEnd && mid.y == r.yEnd)) continue;
      work.push_back({mid.x, r.xEnd, mid.y, r.yEnd});
      work.push_back({r.xBegin, mid.x, r.yBegin, mid.y});
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

 private:
  bool equal(Index x, Index y) {
    ++stats_.comparisons;
    return a_[static_cast<size_t>(x)] == b_[static_cast<size_t>(y)];
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

  const std::vector<uint64_t>& a_;
  const std::vector<uint64_t>& b_;
  AlignmentStats& stats_;
  std::vector<Index> forward_, backward_;  // furthest x per diagonal
  Index offset_ = 0;
  Index costLimit_ = 0;
};

}  // namespace

Pairs alignSequences(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                     const AlignmentOptions& options, AlignmentStats* stats) {
  AlignmentStats ignored;
  return Aligner(a, b, options, stats ? *stats : ignored).run();
}

}  // namespace reshardctl
