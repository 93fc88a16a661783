#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "syntax/program_loading.h"

namespace reshardctl {

namespace {

// A file of `text` under $TMPDIR, removed at the end of the test.
struct TempText {
  std::string path;
  explicit TempText(const std::string& text) {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/program-loading-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    REQUIRE(fd >= 0);
    ::close(fd);
    path = pattern;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempText() { ::unlink(path.c_str()); }
};

constexpr const char* kLog =
    "I1130 start\n{\n    (%0) = \"pd_op.a\" () {} : () -> f32\n}\nbetween\n"
    "IR after x pass {\n    (%0) = \"pd_op.b\" () {} : () -> f32\n}\n";

InputFile readText(const TempText& text) {
  InputFile file;
  file.path = text.path;
  readProgramFile(file, {});
  return file;
}

}  // namespace

TEST_CASE("readProgramFile reads a file once and finds its programs") {
  TempText log(kLog);
  const InputFile file = readText(log);
  REQUIRE(file.failure == kExitOk);
  REQUIRE(file.programs.size() == 2);
  CHECK(file.programs[1].label == "IR after x pass");
  CHECK(file.programs[1].pass == "x");

  InputFile missing;
  missing.path = log.path + ".missing";
  readProgramFile(missing, {});
  CHECK(missing.failure == kExitUsage);
  CHECK(missing.source == nullptr);
  DiagnosticEngine diagnostics;
  CHECK(loadFoundProgram(missing, {}, diagnostics).failure == kExitUsage);
  CHECK(diagnostics.errorCount() == 1);  // the read failure, as this engine's own
}

TEST_CASE("loadFoundProgram chooses by index, number, label or pass, then parses and verifies") {
  TempText log(kLog);
  const InputFile file = readText(log);
  for (const auto& [choice, op] : {std::pair{ProgramChoice{2, ""}, "pd_op.b"}, std::pair{ProgramChoice{0, "1"}, "pd_op.a"},
                                   std::pair{ProgramChoice{0, "x pass"}, "pd_op.b"},
                                   std::pair{ProgramChoice{0, "after:x"}, "pd_op.b"}}) {
    DiagnosticEngine diagnostics;
    LoadedProgram loaded = loadFoundProgram(file, choice, diagnostics);
    INFO(choice.index << " '" << choice.selector << "': " << diagnostics.render());
    REQUIRE(loaded.program);
    CHECK(loaded.source == file.source);  // no second read
    CHECK(loaded.program->body()->front()->name() == op);
    CHECK(!loaded.wholeFile());
  }
  DiagnosticEngine unchosen;
  CHECK(loadFoundProgram(file, {}, unchosen).failure == kExitUsage);  // which of the two?
  REQUIRE(unchosen.errorCount() == 1);
  CHECK(unchosen.diagnostics()[0].message.find("holds 2 programs") != std::string::npos);
  DiagnosticEngine none;
  CHECK(loadFoundProgram(file, {0, "before:"}, none).failure == kExitUsage);
  CHECK(none.diagnostics()[0].message.find("no program printed before a pass") != std::string::npos);
}

TEST_CASE("a file without a program is parsed whole, so a broken dump is diagnosed") {
  TempText broken("    (%0) = \"pd_op.a\" (%9) {} : () -> f32\n");
  const InputFile file = readText(broken);
  REQUIRE(file.programs.empty());
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadFoundProgram(file, {}, diagnostics);
  CHECK(loaded.failure == kExitBadInput);
  CHECK(diagnostics.errorCount() >= 1);
}

TEST_CASE("--program's forms select as documented") {
  FoundProgram after;
  after.label = "IRPrinting on builtin.module after apply_partition_pass pass";
  after.pass = "apply_partition_pass";
  CHECK(selectsProgram(after, 3, "3"));
  CHECK(!selectsProgram(after, 3, "2"));
  CHECK(selectsProgram(after, 1, "after:"));
  CHECK(selectsProgram(after, 1, "after:apply_partition_pass"));
  CHECK(!selectsProgram(after, 1, "before:apply_partition_pass"));
  CHECK(selectsProgram(after, 1, "partition"));
  CHECK(isProgramIndex("12"));
  CHECK(!isProgramIndex("1a"));
  CHECK(!isProgramIndex("1234567890"));  // ten digits: a label, not an index
}

}  // namespace reshardctl
