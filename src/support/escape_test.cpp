#include "support/escape.h"

#include <doctest/doctest.h>

namespace reshardctl {

// Hostile bytes every destination is tried with.
constexpr std::string_view kEsc = "\x1b]8;;http://x\x07";  // an OSC hyperlink ended by BEL
constexpr std::string_view kRlo = "\xE2\x80\xAE";           // U+202E RIGHT-TO-LEFT OVERRIDE

TEST_CASE("terminal: control and bidi characters and invalid UTF-8 are shown escaped") {
  CHECK(terminalText("plain/name.ir: ok\n\tindented") == "plain/name.ir: ok\n\tindented");
  CHECK(terminalText(kEsc) == "\\x1b]8;;http://x\\x07");
  CHECK(terminalText("a\rb\x7f") == "a\\x0db\\x7f");  // a lone CR would start a line for a CI runner
  CHECK(terminalText(std::string("metsys_\xE2\x80\xAE") + "x") == "metsys_\\u202ex");
  CHECK(terminalText("\xE2\x81\xA6\xE2\x80\x8F\xD8\x9C") == "\\u2066\\u200f\\u061c");
  CHECK(terminalText("\xC2\x9B" "31m") == "\\u009b31m");  // C1 CSI
  CHECK(terminalText("\xff\xC3") == "\\xff\\xc3");
  CHECK(terminalText("caf\xC3\xA9 \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xF0\x9F\x98\x80");
  CHECK(terminalText("a\\b \"q\" ::x %") == "a\\b \"q\" ::x %");
}

TEST_CASE("terminal: one line escapes the newline too; the mask keeps byte columns") {
  CHECK(terminalLine("two\nlines\tx") == "two\\x0alines\tx");
  CHECK(terminalMasked(std::string("a\x1b[1mb\tc") + std::string(kRlo) + "\xff\n") == "a?[1mb\tc?????");
  CHECK(terminalMasked("caf\xC3\xA9") == "caf\xC3\xA9");
}

TEST_CASE("terminal: every byte position of a long text is looked at (the eight-at-a-time scan)") {
  const std::string plain = "abcdefghijklmnopqrstuvw~ \t";
  for (size_t at = 0; at < plain.size(); ++at)
    for (char hostile : {'\x1b', '\x7f', '\r', '\x80', '\x1f', '\0'}) {
      std::string text = plain;
      text[at] = hostile;
      CAPTURE(at);
      CHECK(terminalText(text) != text);
      std::string inPlace = text;
      escapeForTerminal(inPlace);
      CHECK(inPlace == terminalText(text));
    }
  std::string kept = plain + "\n" + plain;
  escapeForTerminal(kept);
  CHECK(kept == plain + "\n" + plain);
  CHECK(terminalLine(kept) == plain + "\\x0a" + plain);
}

TEST_CASE("diff headers: unusual names are quoted as git quotes them") {
  CHECK(diffHeaderName("dumps/a b-1.ir") == "dumps/a b-1.ir");
  CHECK(diffHeaderName("x\n+++ Makefile") == "\"x\\n+++ Makefile\"");
  CHECK(diffHeaderName("t\tq\"b\\") == "\"t\\tq\\\"b\\\\\"");
  CHECK(diffHeaderName(std::string("e") + std::string(kEsc)) == "\"e\\033]8;;http://x\\a\"");
  CHECK(diffHeaderName("caf\xC3\xA9\xff\x7f") == "\"caf\\303\\251\\377\\177\"");
  CHECK(diffHeaderName("a%b::c") == "a%b::c");
}

TEST_CASE("DOT: a string stops short of Graphviz's 16 KiB buffer, cut at a whole character") {
  std::string out;
  appendDotString(out, std::string(15999, 'a') + "\"");  // 16,001 escaped: cut before the \"
  CHECK(out == std::string(15997, 'a') + "...");
  out.clear();
  appendDotString(out, std::string(15996, 'a') + "\xC3\xA9zzz");  // the cut would split the é
  CHECK(out == std::string(15996, 'a') + "...");
  out.clear();
  appendDotString(out, std::string(15996, 'a') + "\\zzz");  // the cut would leave the escape's first backslash
  CHECK(out == std::string(15996, 'a') + "...");
  out.clear();
  appendDotString(out, std::string(16000, 'b'));  // exactly the limit: whole
  CHECK(out == std::string(16000, 'b'));
}

TEST_CASE("GitHub: data, properties and plain log lines") {
  CHECK(githubData("50% done\r\n::error::x") == "50%25 done%0D%0A::error::x");
  CHECK(githubProperty("a:b,c%\n") == "a%3Ab%2Cc%25%0A");
  // A name's ESC or bidi control reaches the workflow's log escaped, as in the message.
  CHECK(githubProperty("e\x1b[31mvil\xe2\x80\xae.ir") == "e\\x1b[31mvil\\u202e.ir");
  CHECK(githubLogLine("a.ir: ok") == "a.ir: ok");
  CHECK(githubLogLine("x\n::add-mask::secret: ok") == "x%0A::add-mask::secret: ok");
  CHECK(githubLogLine("::error file=a::b: ok") == "%3A:error file=a::b: ok");
  CHECK(githubLogLine("  ::warning::b") == "  %3A:warning::b");
}

TEST_CASE("DOT: strings and comments") {
  std::string dot;
  appendDotString(dot, "a\"b\\c\nd\te\xC3\xA9\xC3");
  CHECK(dot == "a\\\"b\\\\c\\nd e\xC3\xA9\xEF\xBF\xBD");
  CHECK(dotComment("dumps/a.ir") == "// dumps/a.ir\n");
  CHECK(dotComment("a\n}\ndigraph x { a [URL=\"javascript:alert(1)\"] }\r") ==
        "// a\\x0a}\\x0adigraph x { a [URL=\"javascript:alert(1)\"] }\\x0d\n");
}

TEST_CASE("HTML: text, attributes, invalid UTF-8 and bidi controls") {
  CHECK(html("<a href='x'>&\"") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
  CHECK(html("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");          // a truncated sequence
  CHECK(html("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");          // an overlong '/'
  CHECK(html("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(html("\xF0\x9F\x98\x80") == "\xF0\x9F\x98\x80");
  CHECK(html(std::string("pd_op.") + std::string(kRlo) + "llac_metsys" + "\xE2\x80\xAC") ==
        "pd_op.\\u202ellac_metsys\\u202c");
  CHECK(html(kEsc) == " ]8;;http://x ");
}

}  // namespace reshardctl

namespace reshardctl {

TEST_CASE("the eight-bytes-at-a-time test of plain text agrees with the bytewise one for every byte and place") {
  for (int value = 0; value < 256; ++value) {
    const auto byte = static_cast<unsigned char>(value);
    const bool plainLine = (byte >= 0x20 && byte < 0x7F) || byte == '\t';
    for (size_t at = 0; at < 25; ++at) {  // in a turn of two words, a word alone, the bytes after
      std::string text(25, 'a');
      text[at] = static_cast<char>(byte);
      INFO("byte " << value << " at " << at);
      CHECK((terminalLine(text) == text) == plainLine);
      CHECK((terminalText(text) == text) == (plainLine || byte == '\n'));
    }
  }
}

}  // namespace reshardctl
