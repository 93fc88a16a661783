#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tool/input_files.h"
#include "tool/suggest.h"

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
  std::vector<std::string> files;
  std::string error;
  REQUIRE(expandInputs(InputSelection{{tree.root.string(), "-"}, true, {}}, &files, &error));
  CHECK(files == std::vector<std::string>{tree / "a.ir", tree / "b.ir", tree / "sub/c.log", "-"});
}

TEST_CASE("--glob replaces the default patterns") {
  TempTree tree;
  std::vector<std::string> files;
  std::string error;
  REQUIRE(expandInputs(InputSelection{{tree.root.string()}, true, {"*.txt", "c.*"}}, &files, &error));
  CHECK(files == std::vector<std::string>{tree / "sub/c.log", tree / "sub/notes.txt"});
}

TEST_CASE("a directory needs -r; standard input is read once") {
  TempTree tree;
  std::vector<std::string> files;
  std::string error;
  CHECK(!expandInputs(InputSelection{{tree.root.string()}, false, {}}, &files, &error));
  CHECK(error.find("is a directory; use -r") != std::string::npos);
  CHECK(!expandInputs(InputSelection{{"-", "-"}, false, {}}, &files, &error));
  CHECK(error == "standard input ('-') can be read only once");
  files.clear();
  REQUIRE(expandInputs(InputSelection{{"x.ir", "x.ir"}, false, {}}, &files, &error));  // files as given
  CHECK(files == std::vector<std::string>{"x.ir", "x.ir"});
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
