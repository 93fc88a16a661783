#include "support/text.h"

#include <doctest/doctest.h>

namespace reshardctl {

TEST_CASE("trim drops blanks at both ends only") {
  CHECK(trim("  a b\t\r\n") == "a b");
  CHECK(trim("") == "");
  CHECK(trim(" \n ") == "");
  CHECK(trim("x") == "x");
  CHECK(trimStart(" \t a b ") == "a b ");
  CHECK(trimStart("   ") == "");
}

TEST_CASE("plural: the noun follows the count") {
  CHECK(plural(0, "file") == "0 files");
  CHECK(plural(1, "file") == "1 file");
  CHECK(plural(2, "op") == "2 ops");
  CHECK(plural(3, "process", "processes") == "3 processes");
  CHECK(plural(1, "process", "processes") == "1 process");
  CHECK(plural(1, "matches", "match") == "1 matches");
  CHECK(plural(2, "matches", "match") == "2 match");
}

TEST_CASE("countedIn: the items named only when a container holds more than one") {
  CHECK(countedIn(3, "program", 3, "file") == "3 files");
  CHECK(countedIn(1, "program", 1, "file") == "1 file");
  CHECK(countedIn(5, "program", 3, "file") == "5 programs of 3 files");
  CHECK(countedIn(2, "program", 1, "file") == "2 programs of 1 file");
}

TEST_CASE("appendDecimal: appends the number in decimal, sign and extremes included") {
  std::string out = "x:";
  appendDecimal(out, 0);
  out += ',';
  appendDecimal(out, -1);
  out += ',';
  appendDecimal(out, INT64_MAX);
  out += ',';
  appendDecimal(out, INT64_MIN);
  CHECK(out == "x:0,-1,9223372036854775807,-9223372036854775808");
}

}  // namespace reshardctl
