#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/failure.h"
#include "tool/input_files.h"
#include "tool/reporting.h"
#include "support/suggest.h"

namespace reshardctl {

namespace {

namespace fs = std::filesystem;

struct TempTree {
  fs::path root;
  TempTree() {
    std::string pattern = (fs::temp_directory_path() / "reshardctl-inputs-XXXXXX").string();
    root = ::mkdtemp(pattern.data());
    for (const char* file : {"b.ir", "a.ir", "sub/c.log", "sub/notes.txt", ".git/d.ir", "sub/.hidden/e.ir"}) {
      fs::create_directories((root / file).parent_path());
      std::ofstream(root / file) << "{\n}\n";
    }
  }
  ~TempTree() { fs::remove_all(root); }
  std::string operator/(const char* name) const { return (root / name).string(); }
};

}  // namespace

TEST_CASE("-r reads the matching files under a directory in order, hidden ones left out") {
  TempTree tree;
  const std::vector<std::string> files = expandInputs(InputSelection{{tree.root.string(), "-"}, true, {}, ""});
  CHECK(files == std::vector<std::string>{tree / "a.ir", tree / "b.ir", tree / "sub/c.log", "-"});
}

TEST_CASE("-r reads a file link only inside the tree, and no FIFO") {
  TempTree tree;
  fs::create_symlink("../../outside.ir", tree.root / "sub/out.ir");  // leaves the tree
  std::ofstream(tree.root.parent_path() / "outside.ir") << "{\n}\n";
  fs::create_symlink("../a.ir", tree.root / "sub/in.ir");  // stays inside
  fs::create_symlink("/proc/self/environ", tree.root / "env.ir");
  REQUIRE(::mkfifo((tree.root / "fifo.ir").c_str(), 0600) == 0);
  const std::vector<std::string> files = expandInputs(InputSelection{{tree.root.string()}, true, {}, ""});
  fs::remove(tree.root.parent_path() / "outside.ir");
  CHECK(files == std::vector<std::string>{tree / "a.ir", tree / "b.ir", tree / "sub/c.log", tree / "sub/in.ir"});
}

TEST_CASE("--glob replaces the default patterns") {
  TempTree tree;
  const std::vector<std::string> files = expandInputs(InputSelection{{tree.root.string()}, true, {"*.txt", "c.*"}, ""});
  CHECK(files == std::vector<std::string>{tree / "sub/c.log", tree / "sub/notes.txt"});
}

TEST_CASE("a directory needs -r; standard input is read once") {
  TempTree tree;
  // What a usage error says, thrown as a Failure for runCli to report.
  auto usageError = [](const InputSelection& inputs) {
    try {
      expandInputs(inputs);
    } catch (const Failure& failure) {
      CHECK(failure.kind == FailureKind::Usage);
      return failure.message;
    }
    return std::string("no error");
  };
  CHECK(usageError(InputSelection{{tree.root.string()}, false, {}, ""}).find("is a directory; use -r") !=
        std::string::npos);
  CHECK(usageError(InputSelection{{"-", "-"}, false, {}, ""}) == "standard input ('-') can be read only once");
  const std::vector<std::string> files = expandInputs(InputSelection{{"x.ir", "x.ir"}, false, {}, ""});  // files as given
  CHECK(files == std::vector<std::string>{"x.ir", "x.ir"});
}

namespace {

// Runs forEachInput over `files` and records the inputs the work was given.
struct Recorded {
  std::vector<std::string> names, selectors;
  std::vector<size_t> indices;
  std::vector<bool> preRead;
  InputRun run;
};

Recorded record(const std::vector<std::string>& files, const InputSelection& inputs, SeveralPrograms several) {
  std::string error;
  std::unique_ptr<Reporter> reporter = Reporter::create(ReportingOptions{}, &error);
  REQUIRE(reporter);
  Recorded r;
  OutputSink sink;  // the status lines, kept in memory
  r.run = forEachInput(files, inputs, *reporter, [&]() -> OutputSink& { return sink; }, [&](const InputProgram& input) {
    r.names.push_back(input.name);
    r.selectors.push_back(input.selector);
    r.indices.push_back(input.index);
    r.preRead.push_back(input.file->source != nullptr);
    return InputOutcome{input.index == 2 ? 1 : 0, "done"};
  }, several);
  return r;
}

}  // namespace

TEST_CASE("several inputs take each program of a log in turn, read once; one input or --program do not") {
  TempTree tree;
  const std::string log = tree / "train.log";
  std::ofstream(log) << "I1130 start\n{\n    (%0) = \"pd_op.a\" () {} : () -> f32\n}\nbetween\n"
                        "after pass {\n    (%0) = \"pd_op.b\" () {} : () -> f32\n}\n";
  const std::string dump = tree / "a.ir";
  Recorded both = record({dump, log}, InputSelection{{}, false, {}, ""}, SeveralPrograms::InTurn);
  CHECK(both.names == std::vector<std::string>{dump, log + "#1", log + "#2"});
  CHECK(both.selectors == std::vector<std::string>{"", "1", "2"});
  CHECK(both.indices == std::vector<size_t>{0, 1, 2});
  CHECK(both.preRead == std::vector<bool>{true, true, true});
  CHECK(both.run.status == 1);  // the worst
  CHECK(both.run.files == 2);
  CHECK(both.run.programs == 3);

  Recorded recursive = record({log}, InputSelection{{}, true, {}, ""}, SeveralPrograms::InTurn);
  CHECK(recursive.names == std::vector<std::string>{log + "#1", log + "#2"});

  Recorded alone = record({log}, InputSelection{{}, false, {}, ""}, SeveralPrograms::InTurn);
  CHECK(alone.names == std::vector<std::string>{log});  // one file: the loader asks which
  CHECK(alone.preRead == std::vector<bool>{true});      // read once all the same

  // --program filters: the dump holds no program 2 and is skipped.
  Recorded chosen = record({dump, log}, InputSelection{{}, false, {}, "2"}, SeveralPrograms::InTurn);
  CHECK(chosen.names == std::vector<std::string>{log + "#2"});
  CHECK(chosen.selectors == std::vector<std::string>{"2"});
  CHECK(chosen.run.skipped == 1);

  Recorded whole = record({dump, log}, InputSelection{{}, false, {}, ""}, SeveralPrograms::WholeFile);
  CHECK(whole.names == std::vector<std::string>{dump, log});
  CHECK(whole.run.programs == 2);

  Recorded missing = record({tree / "missing.ir", log}, InputSelection{{}, false, {}, ""}, SeveralPrograms::InTurn);
  CHECK(missing.names == std::vector<std::string>{tree / "missing.ir", log + "#1", log + "#2"});
  CHECK(missing.preRead == std::vector<bool>{false, true, true});  // the work says why it cannot be read
}

namespace {

// A log printing one program before and after each of two passes, and a
// worker log without any program.
struct PassLogs {
  TempTree tree;
  std::string log = tree / "passes.log";
  std::string worker = tree / "worker.log";
  PassLogs() {
    std::ofstream(log) << "before-apply-x_pass {\n    (%0) = \"pd_op.a\" () {} : () -> f32\n}\n"
                          "after-apply-x_pass {\n    (%0) = \"pd_op.b\" () {} : () -> f32\n}\n"
                          "before-apply-y_pass {\n    (%0) = \"pd_op.c\" () {} : () -> f32\n}\n"
                          "after-apply-y_pass {\n    (%0) = \"pd_op.d\" () {} : () -> f32\n}\n";
    std::ofstream(worker) << "I1130 10:00:00.000112 41234 init.cc:108] step 1, loss 0.69\n";
  }
};

}  // namespace

TEST_CASE("under several inputs --program selects every match; files without one are skipped") {
  PassLogs logs;
  const InputSelection text{{}, true, {}, "after"};
  Recorded after = record({logs.log, logs.worker}, text, SeveralPrograms::InTurn);
  CHECK(after.names == std::vector<std::string>{logs.log + "#2", logs.log + "#4"});  // both labels contain it
  CHECK(after.run.skipped == 1);
  CHECK(after.run.programs == 2);

  Recorded stage = record({logs.log}, InputSelection{{}, true, {}, "after:y_pass"}, SeveralPrograms::InTurn);
  CHECK(stage.names == std::vector<std::string>{logs.log + "#4"});
  Recorded anyPass = record({logs.log}, InputSelection{{}, true, {}, "before:"}, SeveralPrograms::InTurn);
  CHECK(anyPass.names == std::vector<std::string>{logs.log + "#1", logs.log + "#3"});

  Recorded none = record({logs.log, logs.worker}, InputSelection{{}, true, {}, "after:z_pass"}, SeveralPrograms::InTurn);
  CHECK(none.names.empty());
  CHECK(none.run.skipped == 2);
  CHECK(none.run.status == 0);  // skipped is no error

  // A file named as a dump is parsed whole even without a program, so it is diagnosed.
  const std::string broken = logs.tree / "broken.ir";
  std::ofstream(broken) << "not a program\n";
  Recorded dumps = record({broken, logs.worker}, InputSelection{{}, false, {}, ""}, SeveralPrograms::InTurn);
  CHECK(dumps.names == std::vector<std::string>{broken});
  CHECK(dumps.run.skipped == 1);
}

TEST_CASE("FILE#N is program N of FILE, as an input and on its own") {
  PassLogs logs;
  Recorded named = record({logs.log + "#3", logs.worker}, InputSelection{{}, false, {}, ""}, SeveralPrograms::InTurn);
  CHECK(named.names == std::vector<std::string>{logs.log + "#3"});
  CHECK(named.indices == std::vector<size_t>{3});
  CHECK(programNameOf(logs.log + "#12").file == logs.log);
  CHECK(programNameOf(logs.log + "#12").number == 12);
  CHECK(programNameOf("a#b").number == 0);
  CHECK(programNameOf("#2").number == 0);

  DiagnosticEngine diagnostics;
  LoadedProgram third = loadProgram(logs.log + "#3", diagnostics);
  REQUIRE(third.program);
  CHECK(third.index == 3);
  DiagnosticEngine beyond;
  CHECK(loadProgram(logs.log + "#9", beyond).failure == kExitUsage);  // lists what it holds
  CHECK(beyond.render().find("no program 9 in") != std::string::npos);
  CHECK_THROWS_AS(loadProgram(logs.log + "#1", diagnostics, "2"), Failure);  // chosen twice

  // A file whose own name ends in #N is that file.
  const std::string hashed = logs.tree / "dump.ir#2";
  std::ofstream(hashed) << "{\n}\n";
  CHECK(programNameOf(hashed).number == 0);
}

TEST_CASE("a file is read once; each input loads from it, and a read failure is told to each engine") {
  TempTree tree;
  const std::string log = tree / "train.log";
  std::ofstream(log) << "I1130 start\n{\n    (%0) = \"pd_op.a\" () {} : () -> f32\n}\nbetween\n"
                        "after pass {\n    (%0) = \"pd_op.b\" () {} : () -> f32\n}\n";
  std::shared_ptr<const InputFile> file = readInput(log);
  REQUIRE(file->failure == kExitOk);
  CHECK(file->programs.size() == 2);
  DiagnosticEngine first, second;
  LoadedProgram pass = loadProgram(InputProgram::chosen(file, "after pass"), first);
  LoadedProgram one = loadProgram(InputProgram::chosen(file, "1"), second);
  REQUIRE(pass.program);
  REQUIRE(one.program);
  CHECK(pass.index == 2);
  CHECK(one.index == 1);
  CHECK(pass.source == one.source);  // one read
  CHECK(!pass.wholeFile());

  DiagnosticEngine unchosen;
  CHECK(loadProgram(InputProgram::chosen(file, ""), unchosen).failure == kExitUsage);  // which of the two?
  CHECK(unchosen.errorCount() == 1);

  std::shared_ptr<const InputFile> missing = readInput(tree / "missing.ir");
  CHECK(missing->failure == kExitUsage);
  DiagnosticEngine a, b;
  CHECK(reportReadFailure(*missing, a));
  CHECK(loadProgram(InputProgram::chosen(missing, ""), b).failure == kExitUsage);
  CHECK(a.errorCount() == 1);
  CHECK(b.errorCount() == 1);
}

TEST_CASE("the closest word, when it is close enough") {
  const std::vector<std::string> commands = {"apply", "print", "verify", "diff", "plan", "run"};
  CHECK(closestWord("aply", commands) == "apply");
  CHECK(closestWord("pirnt", commands) == "print");  // a swap counts once
  CHECK(closestWord("verfy", commands) == "verify");
  CHECK(closestWord("xyz", commands).empty());
  CHECK(didYouMean("--chek", {"--check", "--stats"}) == " did you mean '--check'?");
  CHECK(didYouMean("--zzzzzz", {"--check", "--stats"}).empty());
}

}  // namespace reshardctl
