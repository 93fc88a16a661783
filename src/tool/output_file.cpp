#include "tool/output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "tool/temp_file_guard.h"

namespace reshardctl {

// A file descriptor behind a stdio stream (fopencookie), keeping the errno of
// the first failed write: by the time the stream reports an error, errno has
// long been overwritten.
struct OutputFile::Sink {
  int fd = -1;
  int error = 0;  // errno of the first failure; 0: none

  static ssize_t write(void* cookie, const char* data, size_t size) {
    Sink& sink = *static_cast<Sink*>(cookie);
    size_t done = 0;
    while (done < size) {
      ssize_t n = ::write(sink.fd, data + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (sink.error == 0) sink.error = n < 0 ? errno : EIO;
        return done > 0 ? static_cast<ssize_t>(done) : -1;
      }
      done += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(done);
  }

  static int close(void* cookie) {
    Sink& sink = *static_cast<Sink*>(cookie);
    if (sink.fd >= 0 && ::close(sink.fd) != 0 && sink.error == 0) sink.error = errno;
    sink.fd = -1;
    return sink.error == 0 ? 0 : -1;
  }
};

namespace {

constexpr size_t kStreamBuffer = size_t{1} << 16;

std::string describe(const std::string& what, const std::string& path, int error) {
  return "cannot " + what + " '" + path + "': " + std::strerror(error);
}

// The descriptor a path names when it is one of the process's own open files:
// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. Writing to a dup of
// it keeps what the caller set up (a pipe, `>>` append); reopening the path
// would truncate, and a temp file + rename would replace the /dev symlink.
std::optional<int> namedDescriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
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

std::string directoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Follows symlinks to the file they name, which may not exist yet (a dangling
// link's target is where the output goes). Sets *error on a loop.
std::string followLinks(std::string path, int* error) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
    std::string target(static_cast<size_t>(info.st_size > 0 ? info.st_size : PATH_MAX), '\0');
    ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n <= 0) return path;
    target.resize(static_cast<size_t>(n));
    path = target.front() == '/' ? target : directoryOf(path) + "/" + target;
  }
  *error = ELOOP;
  return path;
}

// A stdio stream over the sink's descriptor, which keeps its write errors.
std::FILE* streamOver(OutputFile::Sink& sink) {
  cookie_io_functions_t functions{};
  functions.write = &OutputFile::Sink::write;
  functions.close = &OutputFile::Sink::close;
  std::FILE* stream = ::fopencookie(&sink, "w", functions);
  if (stream) std::setvbuf(stream, nullptr, _IOFBF, kStreamBuffer);
  return stream;
}

}  // namespace

OutputFile::OutputFile() : sink_(std::make_unique<Sink>()) {}

std::optional<OutputFile> OutputFile::open(const std::string& requested, std::string* error) {
  OutputFile out;
  out.requested_ = requested;
  out.path_ = requested;
  Sink& sink = *out.sink_;
  if (std::optional<int> fd = namedDescriptor(requested)) {
    if (*fd == 1) std::fflush(stdout);
    sink.fd = ::fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    if (sink.fd < 0) {
      *error = describe("write", requested == "-" ? "<stdout>" : requested, errno);
      return std::nullopt;
    }
  } else {
    int loop = 0;
    out.path_ = followLinks(requested, &loop);
    if (loop != 0) {
      *error = describe("write", requested, loop);
      return std::nullopt;
    }
    struct stat info {};
    bool exists = ::stat(out.path_.c_str(), &info) == 0;
    if (exists && !S_ISREG(info.st_mode)) {  // a fifo, a terminal, /dev/null
      sink.fd = ::open(out.path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (sink.fd < 0) {
        *error = describe("open", requested, errno);
        return std::nullopt;
      }
    } else {
      std::string temp = directoryOf(out.path_) + "/.reshardctl-XXXXXX";
      sink.fd = ::mkostemp(temp.data(), O_CLOEXEC);
      if (sink.fd < 0) {
        *error = describe("create a temporary file for", requested, errno);
        return std::nullopt;
      }
      out.tempPath_ = temp;  // from here on, the destructor removes it
      out.guardSlot_ = TempFileGuard::watch(temp);
      if (exists) {
        // The replaced file's mode and owner; what cannot be given to a new
        // inode (other hard links, an owner we may not set) needs in place.
        ::fchmod(sink.fd, info.st_mode & 07777);
        bool owned = info.st_uid == ::geteuid() && info.st_gid == ::getegid();
        if (!owned && ::fchown(sink.fd, info.st_uid, info.st_gid) != 0) out.inPlace_ = true;
        if (info.st_nlink > 1) out.inPlace_ = true;
      } else {
        mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(sink.fd, 0666 & ~mask);
      }
    }
  }
  out.stream_ = streamOver(sink);
  if (!out.stream_) {
    *error = describe("write", requested, errno);
    ::close(sink.fd);
    sink.fd = -1;
    return std::nullopt;
  }
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : requested_(std::move(other.requested_)),
      path_(std::move(other.path_)),
      tempPath_(std::move(other.tempPath_)),
      guardSlot_(std::exchange(other.guardSlot_, -1)),
      inPlace_(other.inPlace_),
      sink_(std::move(other.sink_)),
      stream_(std::exchange(other.stream_, nullptr)),
      committed_(std::exchange(other.committed_, true)) {}

OutputFile::~OutputFile() {
  if (stream_) std::fclose(stream_);
  if (!committed_ && !tempPath_.empty()) ::unlink(tempPath_.c_str());
  TempFileGuard::forget(guardSlot_);
}

bool OutputFile::closeStream(std::string* error) {
  std::fflush(stream_);
  std::fclose(stream_);  // closes the descriptor through the sink
  stream_ = nullptr;
  if (sink_->error == 0) return true;
  *error = describe("write", requested_ == "-" ? "<stdout>" : requested_, sink_->error);
  return false;
}

void OutputFile::abandon(std::string* error) {
  if (!stream_) return;
  std::string reason;
  if (!closeStream(&reason)) *error = reason;
}

bool OutputFile::commit(std::string* error) {
  if (!closeStream(error)) return false;
  if (!tempPath_.empty() && !publish(error)) return false;
  committed_ = true;
  return true;
}

bool OutputFile::publish(std::string* error) {
  if (inPlace_) return copyInPlace(error);
  if (std::rename(tempPath_.c_str(), path_.c_str()) != 0) {
    *error = describe("replace", requested_, errno);
    return false;
  }
  return true;
}

// The output, complete in the temporary file, copied over the file's old
// content. Space is reserved first, so a full disk fails before the old
// content is touched; Ctrl-C and kill wait until the copy is done.
bool OutputFile::copyInPlace(std::string* error) {
  sigset_t stops, before;
  ::sigemptyset(&stops);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaddset(&stops, signal);
  ::pthread_sigmask(SIG_BLOCK, &stops, &before);
  bool copied = copyTempOver(error);
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return copied;
}

bool OutputFile::copyTempOver(std::string* error) {
  int from = ::open(tempPath_.c_str(), O_RDONLY | O_CLOEXEC);
  int to = from < 0 ? -1 : ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  struct stat info {};
  int failure = from < 0 || to < 0 || ::fstat(from, &info) != 0 ? errno : 0;
  if (failure == 0 && info.st_size > 0) {
    int reserved = ::posix_fallocate(to, 0, info.st_size);
    if (reserved != 0 && reserved != EOPNOTSUPP && reserved != EINVAL) failure = reserved;
  }
  char buffer[kStreamBuffer];
  for (ssize_t n; failure == 0 && (n = ::read(from, buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno != EINTR) failure = errno;
      continue;
    }
    for (ssize_t done = 0; failure == 0 && done < n;) {
      ssize_t written = ::write(to, buffer + done, static_cast<size_t>(n - done));
      if (written < 0 && errno != EINTR) failure = errno;
      if (written > 0) done += written;
    }
  }
  if (failure == 0 && ::ftruncate(to, info.st_size) != 0) failure = errno;
  if (to >= 0 && ::close(to) != 0 && failure == 0) failure = errno;
  if (from >= 0) ::close(from);
  if (failure != 0) {
    *error = describe("write", requested_, failure);
    return false;
  }
  ::unlink(tempPath_.c_str());
  return true;
}

}  // namespace reshardctl
