#include "ir/source.h"

#include <doctest/doctest.h>

using namespace reshardctl;

TEST_CASE("source: line and column of an offset") {
  const SourceFile source = SourceFile::fromString("t.ir", "ab\ncd\n\nefg");
  auto at = [&](size_t offset) {
    const SourceFile::LineCol where = source.lineCol(offset);
    return std::pair(where.line, where.column);
  };
  CHECK(at(0) == std::pair<size_t, size_t>(1, 1));
  CHECK(at(2) == std::pair<size_t, size_t>(1, 3));  // the newline ends its own line
  CHECK(at(3) == std::pair<size_t, size_t>(2, 1));
  CHECK(at(6) == std::pair<size_t, size_t>(3, 1));  // an empty line
  CHECK(at(9) == std::pair<size_t, size_t>(4, 3));
  CHECK(at(100) == std::pair<size_t, size_t>(4, 4));  // past the end: the end
}
