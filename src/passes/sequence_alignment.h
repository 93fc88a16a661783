// The longest common subsequence of two sequences of keys, by Myers' O(ND)
// algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986) in its
// linear-space form: find the middle snake of the shortest edit script, split
// there, and solve both halves. Time O((N+M)·D) and memory O(N+M) for D
// differences: exact, and linear when little differs.
//
// When many scattered differences would make D·(N+M) large, a search that
// has spent `costLimit` edit steps without finding the middle snake splits at
// the furthest point either direction reached instead (GNU diff's heuristic):
// the result is then a common subsequence, not always the longest, and the
// time stays linear: about (N+M)·costLimit·(D/(N+M)) at most.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace reshardctl {

struct AlignmentOptions {
  // Edit steps one split may try before the heuristic split; 0 = 256.
  size_t costLimit = 0;
  bool exact = false;  // never use the heuristic (time O((N+M)·D))
};

struct AlignmentStats {
  size_t diagonalSteps = 0;  // snake starts tried
  size_t comparisons = 0;    // keys compared (snakes followed, equal ends trimmed)
  size_t heuristicSplits = 0;
};

// Index pairs (i, j) with a[i] == b[j], increasing in both.
std::vector<std::pair<size_t, size_t>> alignSequences(const std::vector<uint64_t>& a,
                                                      const std::vector<uint64_t>& b,
                                                      const AlignmentOptions& options = {},
                                                      AlignmentStats* stats = nullptr);

}  // namespace reshardctl
