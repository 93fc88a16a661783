#include <doctest/doctest.h>

#include <random>
#include <string>

#include "ir/line_table.h"
#include "ir/source.h"

namespace reshardctl {

namespace {

// The definition the table must agree with: count newlines before the offset.
LineTable::Position byCounting(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  LineTable::Position where{1, 0};
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++where.line;
      where.lineStart = i + 1;
    }
  return where;
}

}  // namespace

TEST_CASE("line table: every offset of a small text, in order and backwards") {
  const std::string text = "{\n  a\n\n\nbb\r\nlast";
  LineTable forward(text);
  for (size_t offset = 0; offset <= text.size() + 2; ++offset) {
    LineTable::Position want = byCounting(text, offset);
    LineTable::Position got = forward.locate(offset);
    CHECK(got.line == want.line);
    CHECK(got.lineStart == want.lineStart);
  }
  LineTable backward(text);
  for (size_t offset = text.size() + 1; offset-- > 0;) {
    CHECK(backward.locate(offset).line == byCounting(text, offset).line);
  }
}

TEST_CASE("line table: ends of lines, empty text, text ending in a newline") {
  LineTable empty("");
  CHECK(empty.locate(0).line == 1);
  CHECK(empty.locate(5).lineStart == 0);
  LineTable ends("ab\ncd\n");
  CHECK(ends.locate(2).line == 1);  // the newline belongs to its line
  CHECK(ends.locate(3).line == 2);
  CHECK(ends.locate(6).line == 3);  // after the last newline: a new, empty line
  CHECK(ends.locate(6).lineStart == 6);
}

TEST_CASE("line table: random lookups on a large text agree with counting") {
  std::mt19937 random(7);
  std::string text;
  for (int i = 0; i < 3'000'000; ++i) text += random() % 37 == 0 ? '\n' : 'x';
  LineTable table(text);
  table.scanTo(text.size() / 3);  // a partial scan first, as releaseBefore does
  for (int i = 0; i < 200; ++i) {
    size_t offset = random() % (text.size() + 1);
    LineTable::Position want = byCounting(text, offset);
    LineTable::Position got = table.locate(offset);
    CHECK(got.line == want.line);
    CHECK(got.lineStart == want.lineStart);
  }
}

TEST_CASE("source file: line and column, and the line's text, through the table") {
  SourceFile source = SourceFile::fromString("t.ir", "{\n  (%0) = x\r\n}\n");
  CHECK(source.lineCol(4).line == 2);
  CHECK(source.lineCol(4).column == 3);
  CHECK(source.lineAt(4) == "  (%0) = x");  // no \r
  CHECK(source.lineCol(0).column == 1);
  CHECK(source.lineCol(1000).line == 4);  // clamped to the end
  SourceFile moved = std::move(source);
  CHECK(moved.lineAt(15) == "}");
}

}  // namespace reshardctl
