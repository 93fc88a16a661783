#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <algorithm>

#include "tool/output_file.h"

namespace reshardctl {

namespace {

namespace fs = std::filesystem;

// A fresh empty folder, removed with everything in it at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "reshardctl-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(path)) out.push_back(entry.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

bool writeAndCommit(const std::string& path, const std::string& text) {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  REQUIRE_MESSAGE(out, error);
  std::fputs(text.c_str(), out->stream());
  return out->commit(&error);
}

}  // namespace

TEST_CASE("a committed output replaces the file, keeps its mode and leaves no temp file") {
  TempDir dir;
  fs::path file = dir.path / "out.ir";
  write(file, "earlier\n");
  ::chmod(file.c_str(), 0640);
  CHECK(writeAndCommit(file, "new\n"));
  CHECK(read(file) == "new\n");
  CHECK((fs::status(file).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK(dir.names() == std::vector<std::string>{"out.ir"});
}

TEST_CASE("without commit the earlier output is untouched and the temp file is gone") {
  TempDir dir;
  fs::path file = dir.path / "out.ir";
  write(file, "earlier\n");
  {
    std::string error;
    std::optional<OutputFile> out = OutputFile::open(file, &error);
    REQUIRE(out);
    std::fputs("half of a program", out->stream());
    CHECK(dir.names().size() == 2);  // the temp file exists while writing
  }
  CHECK(read(file) == "earlier\n");
  CHECK(dir.names() == std::vector<std::string>{"out.ir"});
}

TEST_CASE("an output that cannot be created is an error, not a crash") {
  std::string error;
  CHECK_FALSE(OutputFile::open("/nonexistent-dir/out.ir", &error));
  CHECK(error.find("cannot create a temporary file for '/nonexistent-dir/out.ir'") == 0);
}

TEST_CASE("writing through a symlink replaces its target and keeps the link") {
  TempDir dir;
  write(dir.path / "real.ir", "earlier\n");
  fs::create_symlink("real.ir", dir.path / "link.ir");
  CHECK(writeAndCommit(dir.path / "link.ir", "new\n"));
  CHECK(fs::is_symlink(dir.path / "link.ir"));
  CHECK(read(dir.path / "real.ir") == "new\n");
  CHECK(dir.names() == std::vector<std::string>{"link.ir", "real.ir"});
}

TEST_CASE("/dev/fd/N writes to that descriptor without reopening it") {
  TempDir dir;
  fs::path file = dir.path / "log.txt";
  write(file, "kept\n");
  int fd = ::open(file.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  CHECK(writeAndCommit("/dev/fd/" + std::to_string(fd), "appended\n"));
  ::close(fd);
  CHECK(read(file) == "kept\nappended\n");  // reopening with "w" would have truncated it
  CHECK(fs::is_symlink("/dev/stdout"));
  CHECK(dir.names() == std::vector<std::string>{"log.txt"});
}

}  // namespace reshardctl
