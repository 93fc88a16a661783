#include <doctest/doctest.h>

#include <random>

#include "support/sequence_alignment.h"

namespace reshardctl {

namespace {

using Keys = std::vector<uint64_t>;

size_t lcsLength(const Keys& a, const Keys& b) {
  std::vector<size_t> row(b.size() + 1, 0), next(b.size() + 1, 0);
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;)
      next[j] = a[i] == b[j] ? row[j + 1] + 1 : std::max(row[j], next[j + 1]);
    std::swap(row, next);
  }
  return row[0];
}

// Pairs increase in both indices and join equal keys.
bool isCommonSubsequence(const Keys& a, const Keys& b, const std::vector<std::pair<size_t, size_t>>& pairs) {
  for (size_t k = 0; k < pairs.size(); ++k) {
    auto [i, j] = pairs[k];
    if (i >= a.size() || j >= b.size() || a[i] != b[j]) return false;
    if (k > 0 && (i <= pairs[k - 1].first || j <= pairs[k - 1].second)) return false;
  }
  return true;
}

Keys randomKeys(std::mt19937& random, size_t size, uint64_t alphabet) {
  Keys keys(size);
  for (uint64_t& key : keys) key = random() % alphabet;
  return keys;
}

// `a` with `edits` random single-key edits: replacements, insertions, removals.
Keys edited(std::mt19937& random, Keys a, size_t edits) {
  for (size_t e = 0; e < edits; ++e) {
    size_t at = random() % (a.size() + 1);
    switch (random() % 3) {
      case 0: if (at < a.size()) a[at] = 1'000'000 + e; break;
      case 1: a.insert(a.begin() + static_cast<std::ptrdiff_t>(at), 2'000'000 + e); break;
      default: if (at < a.size()) a.erase(a.begin() + static_cast<std::ptrdiff_t>(at)); break;
    }
  }
  return a;
}

}  // namespace

TEST_CASE("alignment: the longest common subsequence on small sequences") {
  std::mt19937 random(11);
  for (int round = 0; round < 400; ++round) {
    Keys a = randomKeys(random, random() % 40, 1 + random() % 6);
    Keys b = round % 2 ? randomKeys(random, random() % 40, 1 + random() % 6) : edited(random, a, random() % 8);
    for (bool exact : {true, false}) {
      AlignmentOptions options;
      options.exact = exact;
      auto pairs = alignSequences(a, b, options);
      REQUIRE(isCommonSubsequence(a, b, pairs));
      // The default cost limit (256) is never reached by sequences this short.
      CHECK(pairs.size() == lcsLength(a, b));
    }
  }
  CHECK(alignSequences(Keys{}, Keys{}).empty());
  CHECK(alignSequences(Keys{1, 2}, Keys{}).empty());
  CHECK(alignSequences(Keys{1, 2, 3}, Keys{3, 2, 1}).size() == 1);
}

TEST_CASE("alignment: the work is O((N+M)·D), so linear when few keys differ") {
  std::mt19937 random(5);
  const Keys a = randomKeys(random, 200'000, 1u << 30);
  for (size_t edits : {0u, 1u, 10u, 40u}) {
    const Keys b = edited(random, a, edits);
    AlignmentStats stats;
    AlignmentOptions exact;
    exact.exact = true;
    auto pairs = alignSequences(a, b, exact, &stats);
    CHECK(isCommonSubsequence(a, b, pairs));
    CHECK(pairs.size() >= a.size() - edits);  // each edit costs at most one pair
    const size_t bound = (a.size() + b.size()) * (edits + 1);
    CHECK(stats.comparisons + stats.diagonalSteps <= 2 * bound);
    CHECK(stats.diagonalSteps <= 4 * (edits + 1) * (edits + 1));
    CHECK(stats.heuristicSplits == 0);
  }
}

TEST_CASE("alignment: many scattered differences stay near-linear under the cost limit") {
  // Every 13th key replaced, as after a pass that touches many ops: D is a
  // fraction of N, so the exact O(ND) search would be quadratic.
  std::mt19937 random(3);
  const Keys a = randomKeys(random, 300'000, 1u << 30);
  Keys b = a;
  for (size_t i = 0; i < b.size(); i += 13) b[i] = 5'000'000'000ULL + i;
  AlignmentStats stats;
  AlignmentOptions options;
  options.costLimit = 256;
  auto pairs = alignSequences(a, b, options, &stats);
  CHECK(isCommonSubsequence(a, b, pairs));
  CHECK(stats.heuristicSplits > 0);
  const size_t unchanged = a.size() - (a.size() + 12) / 13;
  CHECK(pairs.size() >= unchanged * 99 / 100);  // near the longest
  CHECK(stats.diagonalSteps + stats.comparisons <= 4 * (a.size() + b.size()) * options.costLimit);
  CHECK(stats.diagonalSteps + stats.comparisons <= 100 * (a.size() + b.size()));  // 65 measured
}

namespace {

// The configuration of the line diff (report/unified_diff.cpp).
AlignmentOptions tracedWithUniqueSplit(size_t budget = SIZE_MAX) {
  AlignmentOptions options;
  options.tracedWindow = 4096;
  options.tracedBudget = budget;
  options.uniqueKeySplit = true;
  return options;
}

}  // namespace

TEST_CASE("alignment: the traced search is minimal on small sequences") {
  std::mt19937 random(17);
  for (int round = 0; round < 400; ++round) {
    Keys a = randomKeys(random, random() % 60, 1 + random() % 8);
    Keys b = round % 2 ? randomKeys(random, random() % 60, 1 + random() % 8) : edited(random, a, random() % 12);
    AlignmentStats stats;
    auto pairs = alignSequences(a, b, tracedWithUniqueSplit(), &stats);
    REQUIRE(isCommonSubsequence(a, b, pairs));
    CHECK(pairs.size() == lcsLength(a, b));
    CHECK(stats.diagonalSteps == 0);  // the linear-space search was never needed
    // With no budget: still a common subsequence, never longer than the longest.
    auto bounded = alignSequences(a, b, tracedWithUniqueSplit(0));
    REQUIRE(isCommonSubsequence(a, b, bounded));
    CHECK(bounded.size() <= pairs.size());
  }
}

TEST_CASE("alignment: past the budget, unique keys split and the rest stays unmatched") {
  // Runs of repeated keys between unique ones: the patience split matches
  // the unique keys; with no budget the repeated runs are left unmatched.
  Keys a, b;
  for (uint64_t i = 0; i < 50; ++i) {
    a.insert(a.end(), {1'000 + i, 7, 7, 8, 8});
    b.insert(b.end(), {1'000 + i, 8, 8, 7, 7});
  }
  AlignmentStats stats;
  auto pairs = alignSequences(a, b, tracedWithUniqueSplit(0), &stats);
  REQUIRE(isCommonSubsequence(a, b, pairs));
  CHECK(stats.uniqueKeySplits == 1);
  CHECK(stats.tracedRanges == 0);
  CHECK(pairs.size() == 50);
  // With a budget, the gaps get their shortest scripts too.
  pairs = alignSequences(a, b, tracedWithUniqueSplit());
  CHECK(pairs.size() == lcsLength(a, b));
}

TEST_CASE("alignment: a large range without unique keys goes to the linear-space search") {
  std::mt19937 random(23);
  const Keys a = randomKeys(random, 20'000, 4);  // every key repeated: no patience split
  const Keys b = edited(random, a, 30);
  AlignmentStats stats;
  auto pairs = alignSequences(a, b, tracedWithUniqueSplit(), &stats);
  REQUIRE(isCommonSubsequence(a, b, pairs));
  CHECK(stats.diagonalSteps > 0);
  CHECK(pairs.size() >= a.size() - 30);
}

}  // namespace reshardctl
