#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "ir/stream_buffer.h"

namespace reshardctl {

namespace {

// `text` behind a descriptor read from its start (a regular file read as a
// stream: readAll only reads), closed and removed at the end.
struct TextOnDescriptor {
  int fd = -1;
  explicit TextOnDescriptor(const std::string& text) {
    char path[] = "/tmp/reshardctl-stream-XXXXXX";
    fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::unlink(path);
    REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    REQUIRE(::lseek(fd, 0, SEEK_SET) == 0);
  }
  ~TextOnDescriptor() { ::close(fd); }
};

std::string textOf(size_t bytes) {
  std::string text;
  for (size_t line = 0; text.size() < bytes; ++line) text += "line " + std::to_string(line) + "\n";
  return text;
}

std::string fileText(int fd, size_t size) {
  std::string text(size, '\0');
  REQUIRE(::pread(fd, text.data(), size, 0) == static_cast<ssize_t>(size));
  return text;
}

// Sets $TMPDIR for one test, restoring it after.
struct TemporaryFolder {
  std::optional<std::string> saved;
  explicit TemporaryFolder(const char* dir) {
    if (const char* old = std::getenv("TMPDIR")) saved = old;
    ::setenv("TMPDIR", dir, 1);
  }
  ~TemporaryFolder() {
    if (saved) ::setenv("TMPDIR", saved->c_str(), 1);
    else ::unsetenv("TMPDIR");
  }
};

// `text` read as a stream that spills after 1 MiB, stopping at `maxBytes`.
struct ReadStream {
  TextOnDescriptor input;
  StreamBuffer buffer{size_t{1} << 20};
  StreamBuffer::Stop stop;
  explicit ReadStream(const std::string& text, size_t maxBytes = SIZE_MAX - 1) : input(text) {
    std::string error;
    stop = buffer.readAll(input.fd, maxBytes, &error);
  }
};

}  // namespace

TEST_CASE("stream buffer: a short stream stays in memory") {
  std::string text = textOf(100000);
  ReadStream read(text);
  REQUIRE(read.stop == StreamBuffer::Stop::End);
  CHECK(read.buffer.spillFile() == -1);
  CHECK(read.buffer.bytes() == text);
}

TEST_CASE("stream buffer: a long stream spills to a temporary file, and comes back on asking") {
  TemporaryFolder folder("/tmp");
  std::string text = textOf(size_t{5} << 20);
  ReadStream read(text);
  REQUIRE(read.stop == StreamBuffer::Stop::End);
  StreamBuffer& buffer = read.buffer;
  REQUIRE(buffer.spillFile() >= 0);
  CHECK(buffer.bytes().empty());
  CHECK(buffer.size() == text.size());
  CHECK(fileText(buffer.spillFile(), buffer.size()) == text);
  REQUIRE(buffer.unspill());
  CHECK(buffer.spillFile() == -1);
  CHECK(buffer.bytes() == text);
}

TEST_CASE("stream buffer: the limit and a NUL byte stop a spilled stream where they stop one in memory") {
  TemporaryFolder folder("/tmp");
  std::string text = textOf(size_t{3} << 20);
  ReadStream cut(text, (size_t{2} << 20) + 5);
  REQUIRE(cut.stop == StreamBuffer::Stop::TooLarge);
  REQUIRE(cut.buffer.spillFile() >= 0);
  CHECK(cut.buffer.size() == (size_t{2} << 20) + 5);
  CHECK(fileText(cut.buffer.spillFile(), cut.buffer.size()) == text.substr(0, cut.buffer.size()));

  std::string binary = text;
  binary[(size_t{2} << 20) + 7] = '\0';
  ReadStream stopped(binary);
  REQUIRE(stopped.stop == StreamBuffer::Stop::NulByte);
  CHECK(stopped.buffer.size() == (size_t{2} << 20) + 7);
  CHECK(fileText(stopped.buffer.spillFile(), stopped.buffer.size()) == text.substr(0, stopped.buffer.size()));
}

TEST_CASE("stream buffer: with no temporary folder to write in, a long stream stays in memory") {
  TemporaryFolder folder("/nonexistent-reshardctl-folder");
  std::string text = textOf(size_t{3} << 20);
  ReadStream read(text);
  REQUIRE(read.stop == StreamBuffer::Stop::End);
  CHECK(read.buffer.spillFile() == -1);
  CHECK(read.buffer.bytes() == text);
}

}  // namespace reshardctl
