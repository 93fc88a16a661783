#include "support/text.h"

#include <doctest/doctest.h>

namespace reshardctl {

TEST_CASE("trim drops blanks at both ends only") {
  CHECK(trim("  a b\t\r\n") == "a b");
  CHECK(trim("") == "");
  CHECK(trim(" \n ") == "");
  CHECK(trim("x") == "x");
}

TEST_CASE("plural: the noun follows the count") {
  CHECK(plural(0, "file") == "0 files");
  CHECK(plural(1, "file") == "1 file");
  CHECK(plural(2, "op") == "2 ops");
  CHECK(plural(3, "process", "processes") == "3 processes");
  CHECK(plural(1, "process", "processes") == "1 process");
}

}  // namespace reshardctl
