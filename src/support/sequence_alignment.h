// The one sequence-alignment engine: the longest common subsequence of two
// sequences of keys (equal keys, equal elements), for the structural program
// diff (ops keyed by their text) and the line diff of `diff -u` and
// `apply --diff` (lines keyed by their text). It knows nothing of programs.
//
// Each range between matched keys loses its equal ends, then goes to the
// first of these tools that its user enabled and that can afford it:
// - Myers' greedy forward search with a trace of every step ("An O(ND)
//   Difference Algorithm and Its Variations", 1986): the shortest edit
//   script, for ranges of at most `tracedWindow` keys, within an edit
//   distance cap and a budget of steps shared by the whole run;
// - the patience split: keys that occur exactly once on each side, kept in
//   the longest run increasing on both, matched; the gaps between them are
//   ranges again;
// - Myers' linear-space form, for the ranges the trace is not used on: find
//   the middle snake of the shortest edit script and split there. Time
//   O((N+M)·D), memory O(N+M): exact, and linear when little differs. When
//   many scattered differences would make D·(N+M) large, a search that has
//   spent `costLimit` edit steps without finding the middle snake splits at
//   the furthest point either direction reached instead (GNU diff's
//   heuristic): then a common subsequence, not always the longest, in time
//   about (N+M)·costLimit·(D/(N+M)) at most.
// A small range that neither the trace nor the patience split can match is
// left unmatched (removed and added whole): that is how the budget bounds a
// line diff's time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace reshardctl {

struct AlignmentOptions {
  // The linear-space search: edit steps one split may try before the
  // heuristic split (0 = 256); `exact` never uses the heuristic.
  size_t costLimit = 0;
  bool exact = false;
  // The traced search, for ranges of at most this many keys (both sides
  // together); 0: never used.
  size_t tracedWindow = 0;
  size_t maxTracedEdits = 2048;  // its trace holds about D^2 entries
  size_t tracedBudget = SIZE_MAX;  // steps of all traced searches together
  bool uniqueKeySplit = false;  // the patience split where the trace is not enough
};

struct AlignmentStats {
  size_t diagonalSteps = 0;  // linear-space search: snake starts tried
  size_t comparisons = 0;    // keys compared (snakes followed, equal ends trimmed)
  size_t heuristicSplits = 0;
  size_t tracedRanges = 0;     // ranges the traced search solved
  size_t uniqueKeySplits = 0;  // ranges the patience split divided
};

// Index pairs (i, j) with a[i] == b[j], increasing in both.
std::vector<std::pair<size_t, size_t>> alignSequences(std::span<const uint64_t> a, std::span<const uint64_t> b,
                                                      const AlignmentOptions& options = {},
                                                      AlignmentStats* stats = nullptr);

}  // namespace reshardctl
