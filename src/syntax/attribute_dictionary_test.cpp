#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ir/diagnostics.h"
#include "ir/source.h"
#include "syntax/attribute_dictionary.h"
#include "syntax/dist_attr_text.h"
#include "syntax/parser.h"
#include "syntax/printer.h"
#include "syntax/program_finder.h"
#include "syntax/testing.h"

namespace reshardctl {

TEST_CASE("attribute dictionaries split at top-level commas only") {
  auto entries = splitAttributes(
      "{axis:(Int32)-1,name:\"a,b}\\\"[\",op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},"
      "result(0):{dims_maping:[-1,-1],partial(0,SUM)}},t:pd_dist.tensor<4xf32, mesh_shape:[2]>}");
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].key == "axis");
  CHECK(entries[0].value == "(Int32)-1");
  CHECK(entries[1].value == "\"a,b}\\\"[\"");
  CHECK(entries[2].key == "op_dist_attr");
  CHECK(entries[2].value.back() == '}');
  CHECK(entries[3].key == "t");
  CHECK(entries[3].value == "pd_dist.tensor<4xf32, mesh_shape:[2]>");
}

TEST_CASE("empty, spaced and malformed dictionaries") {
  CHECK(splitAttributes("{}").empty());
  CHECK(splitAttributes("not a dict").empty());
  auto spaced = splitAttributes("{ a:1 , b : [2] }");
  REQUIRE(spaced.size() == 2);
  CHECK(spaced[1].key == "b");
  CHECK(spaced[1].value == "[2]");
  // A stray closer ends the split instead of looping.
  CHECK(splitAttributes("{a:1]x,b:2}").size() == 1);
}

TEST_CASE("findAttribute reads top-level keys only") {
  std::string_view dict =
      "{op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},operand(0):{stop_gradient:x}},"
      "op_role:(Int32)1,name:\"a,stop_gradient:[true]\",stop_gradient:[true,false]}";
  CHECK(findAttribute(dict, "stop_gradient") == std::optional<std::string_view>("[true,false]"));
  CHECK(findAttribute(dict, "op_role") == std::optional<std::string_view>("(Int32)1"));
  CHECK(!findAttribute(dict, "op").has_value());
  CHECK(!findAttribute("{}", "op_role").has_value());
}

TEST_CASE("boolArrayElement picks one element") {
  CHECK(boolArrayElement("[true,false]", 1) == std::optional<bool>(false));
  CHECK(boolArrayElement("[true]", 0) == std::optional<bool>(true));
  CHECK(!boolArrayElement("[true]", 1).has_value());
  CHECK(!boolArrayElement("true", 0).has_value());
  CHECK(boolArrayElement("[[true],false]", 1) == std::optional<bool>(false));
}

TEST_CASE("writeAttributes sorts keys by byte order") {
  CHECK(writeAttributes({{"stop_gradient", "[true]"}, {"op_role", "1"}, {"op_dist_attr", "{}"}}) ==
        "{op_dist_attr:{},op_role:1,stop_gradient:[true]}");
  CHECK(writeAttributes({}) == "{}");
}

TEST_CASE("an op keeps its dictionary as Paddle prints it: as read when it is so, else sorted and unspaced") {
  StringPool strings;
  parsing::DictionaryRead read;
  CHECK(parsing::keptDictionary(read, strings) == "{}");
  read.text = "{a:1,b:[2]}";
  read.entries = {{"a", "a:1"}, {"b", "b:[2]"}};
  CHECK(parsing::keptDictionary(read, strings) == "{a:1,b:[2]}");
  CHECK(read.verbatim);
  read.reset();
  read.text = "{b:[2], a:1,a:3}";
  read.entries = {{"b", "b:[2]"}, {"a", "a:1"}, {"a", "a:3"}};
  CHECK(parsing::keptDictionary(read, strings) == "{a:1,a:3,b:[2]}");
  CHECK(!read.verbatim);
  CHECK(read.entries[1].second == "a:3");  // sorted stably: a repeat follows its first
}

// ---- the memo: reading with it and without it gives the same graph ----------------

namespace {

// What a parse made, as text: the program printed, a dump of what printing
// does not show (each op's OpDistAttr as read, which equal texts share, and
// its results' dist attrs) and every diagnostic.
std::string parseOutcome(const std::string& name, const std::string& text, bool recognise) {
  SourceFile source = SourceFile::fromString(name, text);
  DiagnosticEngine diagnostics(&source);
  std::vector<std::pair<size_t, size_t>> slices;  // each program of a log, or the whole text
  for (const FoundProgram& program : findPrograms(source.text())) slices.emplace_back(program.begin, program.end);
  if (slices.empty()) slices.emplace_back(0, source.text().size());
  std::string outcome;
  for (auto [begin, end] : slices) {
    ParseResult parsed = parseProgram(source, diagnostics, begin, end,
                                      ParseOptions{.recogniseRepeatedAttributes = recognise});
    if (!parsed.program) continue;
    outcome += printProgramToString(*parsed.program);
    const DistWriteStyle& style = parsed.program->distStyle();
    std::map<const OpDistAttr*, size_t> shared;  // numbered in order of first use
    walkOps(*parsed.program->body(), [&](const Operation* op) {
      outcome += fmt::format("{} @{}", op->name(), op->distAttrLocation());
      if (const OpDistAttr* dist = op->distAttr()) {
        auto [it, added] = shared.emplace(dist, shared.size());
        outcome += fmt::format(" #{} {}", it->second, writeOpDistAttr(*dist, style));
      }
      for (size_t i = 0; i < op->numResults(); ++i)
        if (const TensorDistAttr* dist = op->result(i)->dist) outcome += " " + writeTypeDist(*dist, style);
      outcome += '\n';
    });
  }
  return outcome + diagnostics.render();
}

// Texts the memo could take for another: an op_dist_attr value that a
// remembered one is a prefix of (the check after the comparison), spaced
// and reordered dictionaries after a verbatim one.
std::string nearMisses() {
  const std::string type = " : () -> pd_dist.tensor<f32, mesh_shape:[2],dims_mappings:[]>\n";
  const std::string dist = "op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[]}}";
  std::string text = "{\n";
  text += "    (%0) = \"pd_op.data\" () {" + dist + ",stop_gradient:[true]}" + type;
  text += "    (%1) = \"pd_op.data\" () {" + dist + "x,stop_gradient:[true]}" + type;
  text += "    (%2) = \"pd_op.data\" () {stop_gradient:[true], " + dist + "}" + type;
  text += "    (%3) = \"pd_op.data\" () {" + dist + " ,stop_gradient:[true]}" + type;
  return text + "}\n";
}

void requireSameWithAndWithoutMemo(const std::string& name, const std::string& text) {
  INFO(name);
  CHECK(parseOutcome(name, text, true) == parseOutcome(name, text, false));
}

}  // namespace

TEST_CASE("the attribute memo changes nothing: every sample, golden and bench input reads the same without it") {
  std::vector<std::filesystem::path> inputs = testing::repositoryInputs();
  CHECK(inputs.size() > 100);
  for (const std::filesystem::path& path : inputs) {
    std::string relative = std::filesystem::relative(path, RESHARDCTL_SOURCE_DIR).string();
    requireSameWithAndWithoutMemo(relative, testing::readRepoFile(relative));
  }
  requireSameWithAndWithoutMemo("bench-repeated.ir", testing::benchInput(2000, false));
  requireSameWithAndWithoutMemo("bench-varied.ir", testing::benchInput(2000, true));
  requireSameWithAndWithoutMemo("near-misses.ir", nearMisses());
}

TEST_CASE("the bench inputs are what the memo is for: they parse, and the varied one has no two dictionaries alike") {
  std::string varied = parseOutcome("varied.ir", testing::benchInput(60, true), true);
  CHECK(varied.find("error") == std::string::npos);
  CHECK(varied.find("a0_vary:\"59\"") != std::string::npos);
  CHECK(parseOutcome("repeated.ir", testing::benchInput(60, false), true).find("error") == std::string::npos);
}

}  // namespace reshardctl
