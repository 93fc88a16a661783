#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "ir/verifier.h"
#include "support/parallel_jobs.h"
#include "syntax/parser.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// The verifier's diagnostics on `text` with -j `jobs` ("" when clean).
std::string verifierSays(const std::string& text, unsigned jobs) {
  SourceFile source = SourceFile::fromString("test.ir", text);
  DiagnosticEngine diagnostics(&source);
  ParseResult parsed = parseProgram(source, diagnostics);
  if (!parsed.program) return "unparsed";
  setRequestedJobs(jobs);
  const bool clean = verifyProgram(*parsed.program, diagnostics);
  setRequestedJobs(0);
  return (clean ? "clean\n" : "rejected\n") + diagnostics.render();
}

}  // namespace

TEST_CASE("verifier on threads: the serial verifier's answer and diagnostics, on every error golden") {
  size_t rejected = 0;
  const auto root = std::filesystem::path(RESHARDCTL_SOURCE_DIR) / "tests/golden/errors";
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    if (entry.path().extension() != ".ir") continue;
    INFO(entry.path().filename().string());
    const std::string text = testing::readRepoFile("tests/golden/errors/" + entry.path().filename().string());
    const std::string serial = verifierSays(text, 1);
    CHECK(verifierSays(text, 4) == serial);
    rejected += serial.starts_with("rejected");
  }
  CHECK(rejected >= 1);  // bad-dims-mapping-too-long
}

TEST_CASE("verifier on threads: many problems in many ranges come in the serial order") {
  // bad-dims-mapping-too-long's relu, copied 40 times: an error in every range.
  const std::string data =
      "    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",op_dist_attr:{mesh:{shape:[2],"
      "process_ids:[0,1]},result(0):{dims_maping:[-1,-1]}},shape:(pd_op.IntArray)[4,8],stop_gradient:[true]} : () -> "
      "pd_dist.tensor<4x8xf32, mesh_shape:[2],dims_mappings:[-1,-1]>\n";
  std::string text = "{\n" + data;
  for (int i = 1; i <= 40; ++i)
    text += fmt::format(
        "    (%{}) = \"pd_op.relu\" (%0) {{op_dist_attr:{{mesh:{{shape:[2],process_ids:[0,1]}},operand(0):"
        "{{dims_maping:[{}]}},result(0):{{dims_maping:[-1,-1]}}}}}} : (pd_dist.tensor<4x8xf32, mesh_shape:[2],"
        "dims_mappings:[-1,-1]>) -> pd_dist.tensor<4x8xf32, mesh_shape:[2],dims_mappings:[-1,-1]>\n",
        i, i % 3 == 0 ? "-1,-1" : "-1,-1,-1");
  text += "}\n";
  const std::string serial = verifierSays(text, 1);
  CHECK(serial.starts_with("rejected"));
  CHECK(verifierSays(text, 3) == serial);
  CHECK(verifierSays(text, 7) == serial);
}

}  // namespace reshardctl
