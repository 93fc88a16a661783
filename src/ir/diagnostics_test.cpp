#include <doctest/doctest.h>

#include "ir/diagnostics.h"

namespace reshardctl {

namespace {

using State = DiagnosticPolicy::State;

const SourceFile& source() {
  static const SourceFile kSource = SourceFile::fromString("t.ir", "{\n    (%0) = \"a.b\" () {} : () -> f32\n}\n");
  return kSource;
}

}  // namespace

TEST_CASE("the last -W rule naming a warning decides") {
  DiagnosticPolicy policy;
  policy.warningRules = {{"", State::Error}, {"uneven-shards", State::Off}, {"dense-operand", State::On}};
  CHECK(policy.stateOf("uneven-shards") == State::Off);
  CHECK(policy.stateOf("dense-operand") == State::On);
  CHECK(policy.stateOf("extra-entry") == State::Error);
  policy.warningRules.push_back({"", State::On});  // -Wall at the end
  CHECK(policy.stateOf("uneven-shards") == State::On);
}

TEST_CASE("a warning turned off is dropped; one made an error counts as an error") {
  DiagnosticPolicy policy;
  policy.warningRules = {{"a", State::Off}, {"b", State::Error}};
  DiagnosticEngine engine(&source(), &policy);
  engine.warning("a", 6, 1, "dropped").notes.push_back({Severity::Note, 6, 1, "also dropped"});
  engine.warning("b", 6, 1, "promoted");
  engine.warning("c", 6, 1, "kept");
  CHECK(engine.errorCount() == 1);
  CHECK(engine.warningCount() == 1);
  const std::string text = engine.render();
  CHECK(text.find("dropped") == std::string::npos);
  CHECK(text.find("t.ir:2:5: error: promoted [-Werror=b]") != std::string::npos);
  CHECK(text.find("t.ir:2:5: warning: kept [-Wc]") != std::string::npos);
}

TEST_CASE("past the error limit one error says so, and the rest are dropped") {
  DiagnosticPolicy policy;
  policy.maxErrors = 2;
  DiagnosticEngine engine(&source(), &policy);
  for (int i = 0; i < 5; ++i) engine.error(6, 1, "e" + std::to_string(i));
  CHECK(engine.limitReached());
  const std::vector<const Diagnostic*> all = engine.sorted();
  REQUIRE(all.size() == 3);
  CHECK(all[2]->code == "too-many-errors");
  CHECK(all[2]->message == "t.ir: too many errors: stopped after 2 (--max-errors=N sets the limit, 0 for none)");
  policy.maxErrors = 0;
  DiagnosticEngine unlimited(&source(), &policy);
  for (int i = 0; i < 50; ++i) unlimited.error(6, 1, "e");
  CHECK(!unlimited.limitReached());
  CHECK(unlimited.sorted().size() == 50);
}

TEST_CASE("a message is one line; only its listing adds lines") {
  DiagnosticEngine engine(&source());
  engine.error("no program found in 'e\nt.ir:1:1: error: forged'");
  engine.error("'x.log' holds 2 programs").listing = "  1  one\n  2  two";
  CHECK(engine.render() ==
        "reshardctl: error: no program found in 'e\\x0at.ir:1:1: error: forged'\n"
        "reshardctl: error: 'x.log' holds 2 programs\n  1  one\n  2  two\n");
  CHECK(messageWithListing(engine.diagnostics().back()) == "'x.log' holds 2 programs\n  1  one\n  2  two");
  Diagnostic tried;
  setMessageAndListing(tried, "cannot load X; tried:\n  /a\x1b: no\n  /b: no");
  CHECK(tried.message == "cannot load X; tried:");
  CHECK(tried.listing == "  /a\\x1b: no\n  /b: no");
}

TEST_CASE("a place's end column stays on its line") {
  DiagnosticPlace place;
  CHECK(placeOf(&source(), Diagnostic{Severity::Error, 6, 4, "m"}, &place));
  CHECK(place.line == 2);
  CHECK(place.column == 5);
  CHECK(place.endColumn == 9);
  CHECK(placeOf(&source(), Diagnostic{Severity::Error, 6, 1000, "m"}, &place));
  CHECK(place.endColumn == 35);  // one past the line's 34 bytes
  CHECK(!placeOf(&source(), Diagnostic{Severity::Error, Diagnostic::kNoLocation, 0, "m"}, &place));
  CHECK(!placeOf(nullptr, Diagnostic{Severity::Error, 6, 1, "m"}, &place));
}

TEST_CASE("colour marks the severity and the caret; no snippets gives one line") {
  const Diagnostic d{Severity::Warning, 6, 2, "w", {}, "x", true};
  const std::string colored = formatDiagnostic(&source(), d, TextStyle{true, true});
  CHECK(colored.find("\x1b[1;35mwarning:\x1b[0m") != std::string::npos);
  CHECK(colored.find("\x1b[1;32m^~") != std::string::npos);
  CHECK(formatDiagnostic(&source(), d, TextStyle{false, false}) == "t.ir:2:5: warning: w [-Wx]\n");
}

}  // namespace reshardctl
