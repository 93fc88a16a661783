#include "support/output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <utility>

namespace reshardctl {

namespace {

// Removing the temporary files on SIGINT, SIGTERM or SIGHUP (Ctrl-C, kill, a
// closed terminal), so an interrupted `apply -o out.ir` leaves no
// `.reshardctl-XXXXXX` behind. The handler does only what is
// async-signal-safe: it unlinks the watched paths (kept in fixed buffers) and
// raises the signal again under the disposition that was there before, so the
// process still dies of it.
enum SlotState : int { kFree = 0, kBusy = 1, kWatched = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr size_t kSlots = 8;
std::array<Slot, kSlots> gSlots;
struct sigaction gPrevious[std::size(kSignals)];
std::mutex gInstalling;

void onSignal(int signal) {
  for (Slot& slot : gSlots)
    if (slot.state.load() == kWatched) ::unlink(slot.path);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != signal) continue;
    // Back to what it was; the signal, blocked while this handler runs, is
    // delivered again when it returns.
    ::sigaction(signal, &gPrevious[i], nullptr);
    ::raise(signal);
  }
}

// Puts the handler in place for each signal where it is not, remembering what
// was there (checked on every watchTempFile(): a library may have set its own since).
void install() {
  std::lock_guard<std::mutex> lock(gInstalling);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current {};
    ::sigaction(kSignals[i], nullptr, &current);
    if (current.sa_handler == onSignal) continue;
    if (current.sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup: stays ignored
    gPrevious[i] = current;
    struct sigaction action {};
    action.sa_handler = onSignal;
    ::sigemptyset(&action.sa_mask);
    for (int other : kSignals) ::sigaddset(&action.sa_mask, other);
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

// Registers `path` for removal on a signal; returns a slot for
// forgetTempFile(), or -1 when the path is too long or every slot is taken
// (then a signal leaves it behind).
int watchTempFile(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  install();
  for (size_t i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!gSlots[i].state.compare_exchange_strong(expected, kBusy)) continue;
    std::memcpy(gSlots[i].path, path.c_str(), path.size() + 1);
    gSlots[i].state.store(kWatched);
    return static_cast<int>(i);
  }
  return -1;
}

// Stops watching a slot (after the file was renamed or removed).
void forgetTempFile(int slot) {
  if (slot < 0) return;
  gSlots[static_cast<size_t>(slot)].state.store(kFree);
}

constexpr size_t kCopyBuffer = size_t{1} << 16;

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

// $TMPDIR, else /tmp.
std::string temporaryDirectory() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir == '/' ? dir : "/tmp";
}

// Whether the kernel's fs.protected_symlinks would refuse to follow the link
// `link` (its lstat `info`): a link in a sticky world-writable directory
// (/tmp) is followed only by its owner or when the directory's owner owns it
// too. Checked here whatever the sysctl says, because the tool follows the
// links itself: the shell's `>` is refused there, so must we be.
bool protectedLink(const std::string& link, const struct stat& info) {
  struct stat directory {};
  if (::stat(directoryOf(link).c_str(), &directory) != 0) return false;
  const bool shared = (directory.st_mode & S_ISVTX) != 0 && (directory.st_mode & S_IWOTH) != 0;
  return shared && info.st_uid != ::geteuid() && info.st_uid != directory.st_uid;
}

// Follows symlinks to the file they name, which may not exist yet (a dangling
// link's target is where the output goes). Sets *error on a loop, and to
// EACCES on a link the kernel would not follow (protectedLink).
std::string followLinks(std::string path, int* error) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
    if (protectedLink(path, info)) {
      *error = EACCES;
      return path;
    }
    std::string target(static_cast<size_t>(info.st_size > 0 ? info.st_size : PATH_MAX), '\0');
    ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n <= 0) return path;
    target.resize(static_cast<size_t>(n));
    path = target.front() == '/' ? target : directoryOf(path) + "/" + target;
  }
  *error = ELOOP;
  return path;
}

}  // namespace

OutputFile::OutputFile() = default;

std::optional<OutputFile> OutputFile::open(const std::string& requested, std::string* error) {
  OutputFile out;
  out.requested_ = requested;
  out.path_ = requested;
  int fd = -1;
  if (std::optional<int> named = namedDescriptor(requested)) {
    if (*named == 1) standardOutput().flush();  // what is already on its way comes first
    fd = ::fcntl(*named, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
      *error = describe("write", requested == "-" ? "<stdout>" : requested, errno);
      return std::nullopt;
    }
  } else {
    int loop = 0;
    out.path_ = followLinks(requested, &loop);
    if (loop != 0) {
      *error = describe("write", requested, loop);
      if (loop == EACCES) *error += " (a link in a sticky world-writable folder, owned by another user: not followed)";
      return std::nullopt;
    }
    struct stat info {};
    bool exists = ::stat(out.path_.c_str(), &info) == 0;
    if (exists && !S_ISREG(info.st_mode)) {  // a fifo, a terminal, /dev/null
      fd = ::open(out.path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) {
        *error = describe("open", requested, errno);
        return std::nullopt;
      }
    } else {
      // As the shell's `>`: a file it may not write (0444, root aside) is refused.
      if (exists && ::faccessat(AT_FDCWD, out.path_.c_str(), W_OK, AT_EACCESS) != 0) {
        *error = describe("write", requested, errno);
        return std::nullopt;
      }
      std::string temp = directoryOf(out.path_) + "/.reshardctl-XXXXXX";
      fd = ::mkostemp(temp.data(), O_CLOEXEC);
      if (fd < 0 && exists && (errno == EACCES || errno == EROFS || errno == EPERM)) {
        // A writable file in a folder we may not create in: `>` writes it in
        // place, so do we, from a temporary file where temporary files go.
        temp = temporaryDirectory() + "/.reshardctl-XXXXXX";
        fd = ::mkostemp(temp.data(), O_CLOEXEC);
        out.inPlace_ = true;
      }
      if (fd < 0) {
        *error = describe("create a temporary file for", requested, errno);
        return std::nullopt;
      }
      out.tempPath_ = temp;  // from here on, the destructor removes it
      out.guardSlot_ = watchTempFile(temp);
      if (exists) {
        // The replaced file's mode and owner; what cannot be given to a new
        // inode (other hard links, an owner we may not set) needs in place.
        ::fchmod(fd, info.st_mode & 07777);
        bool owned = info.st_uid == ::geteuid() && info.st_gid == ::getegid();
        if (!owned && ::fchown(fd, info.st_uid, info.st_gid) != 0) out.inPlace_ = true;
        if (info.st_nlink > 1) out.inPlace_ = true;
      } else {
        mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
      }
    }
  }
  out.sink_ = std::make_unique<OutputSink>(fd, requested == "-" ? "<stdout>" : requested, true);
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : requested_(std::move(other.requested_)),
      path_(std::move(other.path_)),
      tempPath_(std::move(other.tempPath_)),
      guardSlot_(std::exchange(other.guardSlot_, -1)),
      inPlace_(other.inPlace_),
      sink_(std::move(other.sink_)),
      closedSink_(other.closedSink_),
      committed_(std::exchange(other.committed_, true)) {}

OutputFile::~OutputFile() {
  sink_.reset();  // closes the descriptor before the temporary file goes
  if (!committed_ && !tempPath_.empty()) ::unlink(tempPath_.c_str());
  forgetTempFile(guardSlot_);
}

bool OutputFile::closeSink(std::string* error) {
  const bool closed = sink_->close();
  if (!closed) *error = sink_->errorMessage();
  closedSink_ = true;
  return closed;
}

void OutputFile::abandon(std::string* error) {
  if (closedSink_) return;
  std::string reason;
  if (!closeSink(&reason)) *error = reason;
}

bool OutputFile::commit(std::string* error) {
  if (!closeSink(error)) return false;
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
  char buffer[kCopyBuffer];
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
