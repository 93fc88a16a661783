// Text helpers every stage shares: one trim, one plural.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reshardctl {

// `text` without the spaces, tabs, CR and LF at either end.
std::string_view trim(std::string_view text);

// "1 file", "3 files": `count` and the noun, in the plural unless count is 1.
// `many` defaults to `one` + "s".
std::string plural(size_t count, std::string_view one, std::string_view many = {});

}  // namespace reshardctl
