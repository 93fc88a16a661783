#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "ir/source.h"

namespace reshardctl {

namespace {

// A file in the temp folder with `text`, removed at the end of the test.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    std::string pattern = "/tmp/reshardctl-source-XXXXXX";
    int fd = ::mkstemp(pattern.data());
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    ::close(fd);
    path = pattern;
  }
  ~TempFile() { ::unlink(path.c_str()); }
};

std::string programOf(size_t bytes) {
  std::string text = "{\n";
  while (text.size() < bytes) text += "    (%0) = \"pd_op.full\" () {} : () -> builtin.tensor<2xf32>\n";
  return text + "}\n";
}

// The resident bytes of the mapping holding `address` (/proc/self/smaps' Rss).
size_t residentBytesOfMapping(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2) inside = begin <= at && at < end;
    size_t kb = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %zu kB", &kb) == 1) return kb * 1024;
  }
  return SIZE_MAX;
}

// `file` loaded as a SourceFile; the test stops when it cannot be.
std::optional<SourceFile> loadOrStop(const TempFile& file) {
  std::string error;
  std::optional<SourceFile> source = SourceFile::load(file.path, &error);
  REQUIRE_MESSAGE(source, error);
  return source;
}

}  // namespace

TEST_CASE("source file: line numbers asked after its pages were dropped leave them dropped") {
  const std::string text = programOf(8 << 20);
  TempFile file(text);
  std::optional<SourceFile> source = loadOrStop(file);
  REQUIRE(std::string_view(source->text()) == text);  // every page read
  source->dropPages(0, text.size());                  // as the parallel parse's chunks do, recording no lines
  size_t offset = 0;
  for (; offset + 4096 < text.size(); offset += 4096) CHECK(source->lineCol(offset).column >= 1);
  CHECK(source->lineCol(offset).line ==
        static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(offset), '\n')) + 1);
  // The lookups read the whole text; at most the 1 MiB scanned ahead and a page stay.
  CHECK(residentBytesOfMapping(source->text().data()) <= (size_t{1} << 20) + 2 * 4096);
}

TEST_CASE("source file: a file truncated while mapped reads as zeros, and says where") {
  const std::string text = programOf(1 << 20);
  TempFile file(text);
  std::optional<SourceFile> source = loadOrStop(file);
  CHECK(!source->truncatedAt());
  // Another process shortens the file while we read it.
  REQUIRE(::truncate(file.path.c_str(), 10000) == 0);
  size_t sum = 0;  // read every byte: past the new end this was SIGBUS
  for (char c : source->text()) sum += static_cast<unsigned char>(c);
  CHECK(sum > 0);
  REQUIRE(source->truncatedAt());
  CHECK(*source->truncatedAt() >= 10000);
  CHECK(*source->truncatedAt() < 10000 + 65536);
  CHECK(source->text()[source->text().size() - 1] == '\0');
  CHECK(source->text().substr(0, 10000) == std::string_view(text).substr(0, 10000));
  CHECK(source->lineCol(source->text().size()).line > 0);  // lines still work
}

TEST_CASE("source file: a file larger than the limit is cut at it, with a located reason") {
  TempFile file(programOf(100000));
  std::string error;
  std::optional<SourceFile> source = SourceFile::load(file.path, &error, {4096});
  REQUIRE(source);
  REQUIRE(source->cutoff());
  CHECK(source->cutoff()->offset == 4096);
  CHECK(source->text().size() == 4096);
  CHECK(source->cutoff()->message.find("limit of 4 KiB") != std::string::npos);
  std::optional<SourceFile> whole = SourceFile::load(file.path, &error);
  REQUIRE(whole);
  CHECK(!whole->cutoff());
}

TEST_CASE("source file: a stream stops at the limit and at a NUL byte") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::string text = programOf(50000);
  REQUIRE(::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  std::string path = "/dev/fd/" + std::to_string(fds[0]);
  std::string error;
  std::optional<SourceFile> cut = SourceFile::load(path, &error, {1000});
  ::close(fds[0]);
  REQUIRE(cut);
  REQUIRE(cut->cutoff());
  CHECK(cut->text() == std::string_view(text).substr(0, 1000));

  std::optional<SourceFile> zeros = SourceFile::load("/dev/zero", &error);
  REQUIRE(zeros);
  REQUIRE(zeros->cutoff());
  CHECK(zeros->cutoff()->offset == 0);
  CHECK(zeros->cutoff()->message.find("NUL byte") != std::string::npos);
}

TEST_CASE("source file: a stream is read whole, through several buffer growths") {
  std::string text = programOf(5 << 20);
  TempFile file(text);
  std::string error;
  // A FIFO would need a writer thread; a pipe from `cat` is the stream case.
  FILE* pipe = ::popen(("cat " + file.path).c_str(), "r");
  REQUIRE(pipe);
  std::optional<SourceFile> source =
      SourceFile::load("/dev/fd/" + std::to_string(::fileno(pipe)), &error);
  ::pclose(pipe);
  REQUIRE(source);
  CHECK(!source->cutoff());
  CHECK(source->text() == text);
}

TEST_CASE("source file: a long stream is spilled and mapped: same text, its pages released as a file's") {
  std::string text = programOf(3 << 20);
  TempFile file(text);
  std::string error;
  FILE* pipe = ::popen(("cat " + file.path).c_str(), "r");
  REQUIRE(pipe);
  SourceFile::LoadOptions options;
  options.spillAfter = size_t{1} << 20;
  std::optional<SourceFile> source =
      SourceFile::load("/dev/fd/" + std::to_string(::fileno(pipe)), &error, options);
  ::pclose(pipe);
  REQUIRE(source);
  CHECK(!source->cutoff());
  CHECK(source->text() == text);
  source->releaseBefore(text.size() / 2);
  CHECK(source->dropPages(0, text.size() / 2) > 0);  // mapped: pages were dropped
  CHECK(source->lineAt(10) == std::string_view(text).substr(2, text.find('\n', 2) - 2));
  CHECK(source->text() == text);  // read back from the file after release
}

TEST_CASE("source file: a line is read only as far as asked past the offset") {
  const SourceFile source = SourceFile::fromString("t.ir", "ab\r\ncdefgh\r\nij");
  CHECK(source.lineAt(5) == "cdefgh");
  CHECK(source.lineAt(5, 2) == "cde");      // cut: it runs on
  CHECK(source.lineAt(5, 7) == "cdefgh");   // the newline within reach: the line, without its CR
  CHECK(source.lineAt(5, 6) == "cdefgh\r");  // cut just before the newline
  CHECK(source.lineAt(13, 1) == "ij");      // the text's end
  CHECK(source.lineAt(1, 0) == "a");
}

TEST_CASE("source file: a missing file and a folder are reported by name") {
  std::string error;
  CHECK(!SourceFile::load("/no/such/file.ir", &error));
  CHECK(error == "cannot read '/no/such/file.ir': No such file or directory");
  CHECK(!SourceFile::load("/tmp", &error));
  CHECK(error == "cannot read '/tmp': Is a directory");
}

}  // namespace reshardctl

TEST_CASE("source: line and column of an offset") {
  const reshardctl::SourceFile source = reshardctl::SourceFile::fromString("t.ir", "ab\ncd\n\nefg");
  auto at = [&](size_t offset) {
    const reshardctl::SourceFile::LineCol where = source.lineCol(offset);
    return std::pair(where.line, where.column);
  };
  CHECK(at(0) == std::pair<size_t, size_t>(1, 1));
  CHECK(at(2) == std::pair<size_t, size_t>(1, 3));  // the newline ends its own line
  CHECK(at(3) == std::pair<size_t, size_t>(2, 1));
  CHECK(at(6) == std::pair<size_t, size_t>(3, 1));  // an empty line
  CHECK(at(9) == std::pair<size_t, size_t>(4, 3));
  CHECK(at(100) == std::pair<size_t, size_t>(4, 4));  // past the end: the end
}
