#include "tool/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace reshardctl {

namespace {
std::string describe(const std::string& what, const std::string& path) {
  return "cannot " + what + " '" + path + "': " + std::strerror(errno);
}

// The descriptor a path names when it is one of the process's own open files:
// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. Writing to a dup of
// it keeps what the caller set up (a pipe, `>>` append); reopening the path
// would truncate, and a temp file + rename would replace the /dev symlink.
std::optional<int> namedDescriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(prefix, 0) != 0) continue;
    std::string_view digits = std::string_view(path).substr(prefix.size());
    int fd = -1;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (ec == std::errc() && end == digits.data() + digits.size() && fd >= 0) return fd;
  }
  return std::nullopt;
}

// A symlink is followed, so the rename replaces the file it points to and
// the link survives.
std::string resolveLink(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return path;  // a dangling link: the rename replaces the link
  std::string resolved = real;
  std::free(real);
  return resolved;
}

}  // namespace

std::optional<OutputFile> OutputFile::open(const std::string& requested, std::string* error) {
  OutputFile out;
  out.path_ = requested;
  if (requested == "-") {
    out.stream_ = stdout;
    return out;
  }
  if (std::optional<int> fd = namedDescriptor(requested)) {
    if (*fd == 1) std::fflush(stdout);
    int copy = ::dup(*fd);
    out.stream_ = copy >= 0 ? ::fdopen(copy, "w") : nullptr;
    if (!out.stream_) {
      if (copy >= 0) ::close(copy);
      *error = describe("open", requested);
      return std::nullopt;
    }
    out.ownsStream_ = true;
    return out;
  }
  std::string path = resolveLink(requested);
  out.path_ = path;
  struct stat info {};
  bool exists = ::stat(path.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) {  // a fifo, a terminal, /dev/null
    out.stream_ = std::fopen(path.c_str(), "w");
    if (!out.stream_) {
      *error = describe("open", requested);
      return std::nullopt;
    }
    out.ownsStream_ = true;
    return out;
  }
  std::string temp = path + ".reshardctl-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    *error = describe("create a temporary file for", requested);
    return std::nullopt;
  }
  mode_t mode = exists ? info.st_mode & 07777 : 0666;
  if (!exists) {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  ::fchmod(fd, mode);
  out.tempPath_ = temp;  // from here on, the destructor removes it
  out.stream_ = ::fdopen(fd, "w");
  if (!out.stream_) {
    ::close(fd);
    *error = describe("write", requested);
    return std::nullopt;
  }
  out.ownsStream_ = true;
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      tempPath_(std::move(other.tempPath_)),
      stream_(std::exchange(other.stream_, nullptr)),
      ownsStream_(std::exchange(other.ownsStream_, false)),
      committed_(std::exchange(other.committed_, true)) {}

OutputFile::~OutputFile() {
  if (ownsStream_ && stream_) std::fclose(stream_);
  if (!committed_ && !tempPath_.empty()) ::unlink(tempPath_.c_str());
}

bool OutputFile::commit(std::string* error) {
  bool ok = std::fflush(stream_) == 0 && !std::ferror(stream_);
  if (ownsStream_) {
    ok = std::fclose(stream_) == 0 && ok;
    stream_ = nullptr;
  }
  if (!ok) {
    *error = describe("write", path_);
    return false;
  }
  if (!tempPath_.empty() && std::rename(tempPath_.c_str(), path_.c_str()) != 0) {
    *error = describe("replace", path_);
    return false;
  }
  committed_ = true;
  return true;
}

}  // namespace reshardctl
