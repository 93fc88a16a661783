// "did you mean ...?": the known word closest to a misspelt one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace reshardctl {

// The candidate with the smallest edit distance to `word` (insertions,
// deletions, substitutions and swaps of neighbours count 1), when that
// distance is small for its length (at most a third of the word, and at
// least 1 allowed); empty when none is that close.
std::string closestWord(std::string_view word, const std::vector<std::string>& candidates);

// " did you mean 'X'?" or "" when nothing is close.
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace reshardctl
