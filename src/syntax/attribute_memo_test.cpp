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
#include "syntax/dist_attr_text.h"
#include "syntax/parser.h"
#include "syntax/printer.h"
#include "syntax/program_finder.h"
#include "syntax/testing.h"

namespace reshardctl {

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
