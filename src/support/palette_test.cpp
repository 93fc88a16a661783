#include "support/palette.h"

#include <doctest/doctest.h>

#include <string>

namespace reshardctl {

TEST_CASE("palette: the SGR sequences diagnostics and diffs have always used, empty without colour") {
  const Palette on(true);
  CHECK(std::string(on(Ink::Error)) == "\x1b[1;31m");
  CHECK(std::string(on(Ink::Warning)) == "\x1b[1;35m");
  CHECK(std::string(on(Ink::DiffRemoved)) == "\x1b[31m");
  CHECK(std::string(on.reset()) == "\x1b[0m");
  const Palette off(false);
  for (Ink ink : {Ink::Bold, Ink::Error, Ink::Warning, Ink::Note, Ink::Caret, Ink::DiffHeader, Ink::DiffHunk,
                  Ink::DiffRemoved, Ink::DiffAdded})
    CHECK(std::string(off(ink)).empty());
  CHECK(std::string(off.reset()).empty());
}

}  // namespace reshardctl
