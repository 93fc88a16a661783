#include <doctest/doctest.h>

#include "report/diagnostic_formats.h"

namespace reshardctl {

namespace {

const SourceFile& source() {
  static const SourceFile kSource = SourceFile::fromString("d,ir/a b%.ir", "{\n    (%0) = \"a.b\" () {} : () -> f32\n}\n");
  return kSource;
}

}  // namespace

TEST_CASE("a JSON-lines record has the place, severity, code and message") {
  const Diagnostic d{Severity::Warning, 6, 3, "uneven", {}, "uneven-shards", true};
  CHECK(diagnosticJson(&source(), d).dump() ==
        R"({"file":"d,ir/a b%.ir","line":2,"col":5,"end_col":8,"severity":"warning","code":"uneven-shards","message":"uneven"})");
  const Diagnostic unplaced{Severity::Error, Diagnostic::kNoLocation, 0, "cannot read", {}, "tool-error"};
  CHECK(diagnosticJson(nullptr, unplaced).dump() ==
        R"({"file":null,"line":null,"col":null,"end_col":null,"severity":"error","code":"tool-error","message":"cannot read"})");
}

TEST_CASE("GitHub workflow commands escape what the runner would misread") {
  const Diagnostic d{Severity::Error, 6, 1, "100% bad\nsecond line: x, y", {}, "syntax-error"};
  CHECK(githubCommand(&source(), d) ==
        "::error file=d%2Cir/a b%25.ir,line=2,col=5,endColumn=6,title=syntax-error::100%25 bad%0Asecond line: x, y\n");
  const Diagnostic note{Severity::Note, Diagnostic::kNoLocation, 0, "n"};
  CHECK(githubCommand(nullptr, note) == "::notice::n\n");
}

TEST_CASE("SARIF: located diagnostics are results, the rest notifications") {
  SarifConsumer sarif("9.9");
  Diagnostic located{Severity::Warning, 6, 1, "w", {}, "dense-operand", true};
  located.notes.push_back({Severity::Note, 6, 2, "here"});
  const Diagnostic unplaced{Severity::Error, Diagnostic::kNoLocation, 0, "cannot read 'x'", {}, "tool-error"};
  sarif.consume(&source(), {&located, &unplaced});
  const nlohmann::ordered_json log = sarif.document();
  CHECK(log["version"] == "2.1.0");
  const auto& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["version"] == "9.9");
  REQUIRE(run["results"].size() == 1);
  const auto& result = run["results"][0];
  CHECK(result["ruleId"] == "dense-operand");
  CHECK(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "d%2Cir/a%20b%25.ir");
  CHECK(result["locations"][0]["physicalLocation"]["region"]["startLine"] == 2);
  CHECK(result["relatedLocations"][0]["message"]["text"] == "here");
  CHECK(run["invocations"][0]["executionSuccessful"] == false);
  CHECK(run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == "cannot read 'x'");
  bool namesTheRule = false;
  for (const auto& rule : run["tool"]["driver"]["rules"]) namesTheRule |= rule["id"] == "dense-operand";
  CHECK(namesTheRule);
}

TEST_CASE("SARIF columns count code points, as its columnKind says; the other formats count bytes") {
  // "é" and "→" before the op name: 2 and 3 bytes, one code point each.
  const SourceFile text = SourceFile::fromString("u.ir", "{\n  \xc3\xa9\xe2\x86\x92 (%0) = \"a.b\" () {} : () -> f32\n}\n");
  const Diagnostic d{Severity::Error, 10, 2, "m", {}, "syntax-error"};  // "(%": 2 blanks, 5 bytes, a blank before
  SarifConsumer sarif("9.9");
  sarif.consume(&text, {&d});
  const nlohmann::ordered_json log = sarif.document();
  const auto& region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
  CHECK(log["runs"][0]["columnKind"] == "unicodeCodePoints");
  CHECK(region["startColumn"] == 6);
  CHECK(region["endColumn"] == 8);
  CHECK(diagnosticJson(&text, d)["col"] == 9);  // JSON lines and GitHub: bytes, as documented
}

TEST_CASE("SARIF URIs: relative paths stay relative, absolute ones are file URIs") {
  CHECK(sarifUri("samples/seed.ir") == "samples/seed.ir");
  CHECK(sarifUri("/tmp/x y.ir") == "file:///tmp/x%20y.ir");
}

}  // namespace reshardctl
