#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <algorithm>

#include "support/output_file.h"

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
  out->sink().write(text);
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
    out->sink().write("half of a program");
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

TEST_CASE("output names up to the system's limit work: the temp file has a short name") {
  TempDir dir;
  const std::string name = std::string(250, 'a') + ".ir";  // 253 bytes; NAME_MAX is 255
  CHECK(writeAndCommit(dir.path / name, "new\n"));
  CHECK(read(dir.path / name) == "new\n");
  CHECK(dir.names() == std::vector<std::string>{name});
}

TEST_CASE("a file with other hard links is rewritten in place: every link sees the output") {
  TempDir dir;
  write(dir.path / "out.ir", "earlier, longer than the new text\n");
  fs::create_hard_link(dir.path / "out.ir", dir.path / "other.ir");
  ::chmod((dir.path / "out.ir").c_str(), 0604);
  struct stat before {};
  ::stat((dir.path / "out.ir").c_str(), &before);
  CHECK(writeAndCommit(dir.path / "out.ir", "new\n"));
  struct stat after {};
  ::stat((dir.path / "out.ir").c_str(), &after);
  CHECK(after.st_ino == before.st_ino);
  CHECK(after.st_nlink == 2);
  CHECK((after.st_mode & 07777) == 0604);
  CHECK(read(dir.path / "other.ir") == "new\n");
  CHECK(dir.names() == std::vector<std::string>{"other.ir", "out.ir"});
}

TEST_CASE("the replaced file's owner is kept (when the process may set it)") {
  if (::geteuid() != 0) return;  // only root can give a file to another user
  TempDir dir;
  write(dir.path / "out.ir", "earlier\n");
  REQUIRE(::chown((dir.path / "out.ir").c_str(), 1234, 1235) == 0);
  CHECK(writeAndCommit(dir.path / "out.ir", "new\n"));
  struct stat info {};
  ::stat((dir.path / "out.ir").c_str(), &info);
  CHECK(info.st_uid == 1234);
  CHECK(info.st_gid == 1235);
  CHECK(read(dir.path / "out.ir") == "new\n");
}

TEST_CASE("a dangling symlink: the file it names is created and the link stays") {
  TempDir dir;
  fs::create_directory(dir.path / "sub");
  fs::create_symlink("sub/new.ir", dir.path / "link.ir");
  CHECK(writeAndCommit(dir.path / "link.ir", "new\n"));
  CHECK(fs::is_symlink(dir.path / "link.ir"));
  CHECK(read(dir.path / "sub" / "new.ir") == "new\n");
  fs::create_symlink("loop.ir", dir.path / "loop.ir");
  std::string error;
  CHECK_FALSE(OutputFile::open(dir.path / "loop.ir", &error));
  CHECK(error.find("Too many levels of symbolic links") != std::string::npos);
}

TEST_CASE("a write error names its reason") {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open("/dev/full", &error);
  REQUIRE(out);
  std::string text(200000, 'x');
  out->sink().write(text);
  CHECK_FALSE(out->commit(&error));
  CHECK(error == "cannot write '/dev/full': No space left on device");
}

// A real signal sent to a child process that holds a temporary output file.
TEST_CASE("SIGTERM and SIGINT remove the temporary file and still end the process") {
  for (int signal : {SIGTERM, SIGINT}) {
    TempDir dir;
    write(dir.path / "out.ir", "earlier\n");
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::signal(SIGTERM, SIG_DFL);  // as in the tool (the test runner reports signals)
      ::signal(SIGINT, SIG_DFL);
      std::string error;
      std::optional<OutputFile> out = OutputFile::open(dir.path / "out.ir", &error);
      if (!out) ::_exit(3);
      out->sink().write("half of a program");
      out->sink().flush();
      char byte = 1;
      if (::write(ready[1], &byte, 1) != 1) ::_exit(4);
      for (;;) ::pause();
    }
    char byte = 0;
    REQUIRE(::read(ready[0], &byte, 1) == 1);
    CHECK(dir.names().size() == 2);  // the temp file exists now
    ::kill(child, signal);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal);
    CHECK(dir.names() == std::vector<std::string>{"out.ir"});
    CHECK(read(dir.path / "out.ir") == "earlier\n");
    ::close(ready[0]);
    ::close(ready[1]);
  }
}

}  // namespace reshardctl
