#include <doctest/doctest.h>

#include "syntax/text_frame.h"

namespace reshardctl {

TEST_CASE("a slice without a frame is parsed in place") {
  CHECK_FALSE(UnframedText::of("{\n    (%0) = \"a.b\" () {} : () -> f32\n}\n", 0, 37));
  std::string log = "caption:\n{\n}\n";
  CHECK_FALSE(UnframedText::of(log, 9, log.size()));
}

TEST_CASE("a fixed prefix is removed from every line, and offsets map back to the source") {
  const std::string log = "x\n332: {\n332:     (%0) = \"a.b\" () {} : () -> f32\n332: }\n";
  const size_t begin = log.find('{');
  std::optional<UnframedText> u = UnframedText::of(log, begin, log.size());
  REQUIRE(u);
  CHECK(u->text() == "{\n    (%0) = \"a.b\" () {} : () -> f32\n}\n");
  REQUIRE(u->frame().prefixes.size() == 1);
  CHECK(u->frame().prefixes[0] == "332: ");
  CHECK_FALSE(u->frame().crlf);
  const size_t name = u->text().find("\"a.b\"");
  CHECK(u->sourceOffset(name) == log.find("\"a.b\""));
  CHECK(u->sourceOffset(0) == begin);
  CHECK(u->sourceOffset(u->text().rfind('}')) == log.rfind('}'));
}

TEST_CASE("indentation of the whole program is a prefix; a blank line, or one that lost its blanks, keeps none") {
  const std::string doc = "    {\n\n        (%0) = \"a.b\" () {} : () -> f32\n    }\n";
  std::optional<UnframedText> u = UnframedText::of(doc, 4, doc.size());
  REQUIRE(u);
  CHECK(u->text() == "{\n\n    (%0) = \"a.b\" () {} : () -> f32\n}\n");
  const std::string trimmed = "332: {\n332:\n332:     (%0) = \"a.b\" () {} : () -> f32\n332: }\n";
  std::optional<UnframedText> t = UnframedText::of(trimmed, 5, trimmed.size());
  REQUIRE(t);
  CHECK(t->text() == "{\n\n    (%0) = \"a.b\" () {} : () -> f32\n}\n");
}

// PaddlePaddle/community runtime_instr.md: ` {` then lines at their own
// columns and `}` at column 1 (tests/golden/real/cinn_runtime_instr_before_lowering.ir).
TEST_CASE("blanks before the opening brace alone are the first line's prefix, the others have none") {
  const std::string doc = " {\n (%0) = \"a.b\" () {} : () -> f32\n}\n";
  std::optional<UnframedText> u = UnframedText::of(doc, 1, doc.size());
  REQUIRE(u);
  CHECK(u->text() == "{\n (%0) = \"a.b\" () {} : () -> f32\n}\n");
  REQUIRE(u->frame().prefixes.size() == 2);
  CHECK(u->frame().prefixes[0] == " ");
  CHECK(u->frame().prefixes[1].empty());
  std::string written;
  FrameWriter(u->frame(), true).write(u->text(), written);
  CHECK(written == doc);
}

TEST_CASE("glog prefixes differ line by line: each is kept; CRLF ends are removed and told") {
  const std::string log =
      "I1201 12:00:00.000001 7 a.cc:1] {\r\n"
      "I1201 12:00:00.000002 7 a.cc:1]     (%0) = \"a.b\" () {} : () -> f32\r\n"
      "I1201 12:00:00.000003 7 a.cc:1] }\r\n";
  std::optional<UnframedText> u = UnframedText::of(log, log.find('{'), log.size());
  REQUIRE(u);
  CHECK(u->text() == "{\n    (%0) = \"a.b\" () {} : () -> f32\n}\n");
  CHECK(u->frame().crlf);
  REQUIRE(u->frame().prefixes.size() == 3);
  CHECK(u->frame().prefixes[2] == "I1201 12:00:00.000003 7 a.cc:1] ");

  std::string written;
  FrameWriter writer(u->frame(), true);
  writer.write("{\n    (%0) = ", written);  // in pieces, as the printer drains
  writer.write("\"a.b\" () {} : () -> f32\n}\n(extra)\n", written);
  CHECK(written == log + "I1201 12:00:00.000003 7 a.cc:1] (extra)\r\n");
}

TEST_CASE("the frame writer leaves the first prefix out when the host text holds it") {
  std::string written;
  FrameWriter writer(TextFrame{{"[rank0]: "}, false}, false);
  writer.write("{\n}\n", written);
  CHECK(written == "{\n[rank0]: }\n");
}

}  // namespace reshardctl
