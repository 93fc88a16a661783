#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tool/input_files.h"
#include "tool/program_output.h"

namespace reshardctl {

namespace {

namespace fs = std::filesystem;

constexpr const char* kLog =
    "I1130 start\n{\n    (%0) = \"pd_op.a\" () {} : () -> f32\n}\nbetween\n"
    "after pass {\n    (%0) = \"pd_op.b\" () {} : () -> f32\n}  // end\ntail\n";

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a log's program written back: only its lines change, as --in-place and apply --diff see it") {
  std::string pattern = (fs::temp_directory_path() / "reshardctl-output-XXXXXX").string();
  const fs::path root = ::mkdtemp(pattern.data());
  const std::string log = (root / "train.log").string();
  std::ofstream(log) << kLog;
  DiagnosticEngine diagnostics;
  LoadedProgram second = loadProgram(log, diagnostics, "2");
  REQUIRE(second.program);
  // Printed as it was read, the program puts back the same bytes: the label
  // before its '{', the comment after its '}' and the other lines stay.
  const std::string expected = kLog;
  CHECK(fileWithProgram(*second.program, second).text() == expected);

  CHECK(writeProgramInPlace(*second.program, second, log, diagnostics) == kExitOk);
  CHECK(readAll(log) == expected);  // the same text, written the other way

  LoadedProgram whole = loadProgram(log, diagnostics, "1");
  REQUIRE(whole.program);
  CHECK(!whole.wholeFile());
  fs::remove_all(root);
}

}  // namespace reshardctl
