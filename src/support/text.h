// Text helpers every stage shares: one trim, one plural, one counted phrase.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reshardctl {

// `text` without the spaces, tabs, CR and LF at either end.
std::string_view trim(std::string_view text);
// `text` without those blanks at its start only.
std::string_view trimStart(std::string_view text);

// "1 file", "3 files": `count` and the noun, in the plural unless count is 1.
// `many` defaults to `one` + "s".
// Verbs agree the same way: plural(n, "matches", "match").
std::string plural(size_t count, std::string_view one, std::string_view many = {});

// "3 files" where each container holds one item, else "5 programs of 3
// files": how many items (programs) the containers (files) held.
std::string countedIn(size_t items, std::string_view item, size_t containers, std::string_view container);

}  // namespace reshardctl
