#include "output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace reshardctl {

namespace {
std::string describe(const std::string& what, const std::string& path) {
  return "cannot " + what + " '" + path + "': " + std::strerror(errno);
}
}  // namespace

std::optional<OutputFile> OutputFile::open(const std::string& path, std::string* error) {
  OutputFile out;
  out.path_ = path;
  if (path == "-") {
    out.stream_ = stdout;
    return out;
  }
  struct stat info {};
  bool exists = ::stat(path.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) {  // /dev/stdout, a fifo, a terminal
    out.stream_ = std::fopen(path.c_str(), "w");
    if (!out.stream_) {
      *error = describe("open", path);
      return std::nullopt;
    }
    out.ownsStream_ = true;
    return out;
  }
  std::string temp = path + ".reshardctl-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    *error = describe("create a temporary file for", path);
    return std::nullopt;
  }
  mode_t mode = exists ? info.st_mode & 07777 : 0666;
  if (!exists) {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  ::fchmod(fd, mode);
  out.stream_ = ::fdopen(fd, "w");
  out.tempPath_ = temp;
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
