#include "support/output_sink.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace reshardctl {

namespace {

constexpr size_t kMemoryStart = size_t{1} << 21;  // the printer's text of a small program fits at once
constexpr size_t kHandOnAt = size_t{1} << 20;     // a consumer gets 1 MiB at a time
constexpr size_t kStandardStream = size_t{1} << 16;  // lines and diagnostics; a program goes through OutputFile

}  // namespace

OutputSink::OutputSink() { grow(kMemoryStart); }

OutputSink::OutputSink(int fd, std::string name, bool owned, size_t capacity)
    : fd_(fd), owned_(owned), name_(std::move(name)) {
  grow(capacity);
}

OutputSink::OutputSink(Consumer consumer) : consumer_(std::move(consumer)) { grow(kHandOnAt); }

OutputSink::~OutputSink() { close(); }

void OutputSink::grow(size_t needed) {
  const size_t used = size();
  const size_t capacity = std::max(this->capacity() * 2, used + needed);
  std::unique_ptr<char[]> bigger(new char[capacity]);  // not value-initialised: see buffer_
  if (used > 0) std::memcpy(bigger.get(), begin_, used);
  buffer_ = std::move(bigger);
  begin_ = buffer_.get();
  cur_ = begin_ + used;
  end_ = begin_ + capacity;
}

// Memory grows; a descriptor or consumer is handed the buffer first, and the
// buffer grows only for a piece larger than itself.
void OutputSink::makeRoom(size_t needed) {
  if (fd_ >= 0 || consumer_) flush();
  if (static_cast<size_t>(end_ - cur_) < needed) grow(needed);
}

void OutputSink::write(std::string_view text) {
  if ((fd_ < 0 && !consumer_) || text.size() < capacity()) {
    *this += text;
    return;
  }
  flush();
  deliver(text);
}

void OutputSink::deliver(std::string_view bytes) {
  if (consumer_) {
    consumer_(bytes);
    return;
  }
  while (!bytes.empty() && error_ == 0) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

bool OutputSink::flush() {
  if (fd_ < 0 && !consumer_) return true;
  if (size() > 0) deliver(view());
  cur_ = begin_;
  return error_ == 0;
}

bool OutputSink::close() {
  flush();
  if (owned_ && fd_ >= 0 && ::close(fd_) != 0 && error_ == 0) error_ = errno;
  if (owned_) fd_ = -1;
  return error_ == 0;
}

std::string OutputSink::errorMessage() const {
  return "cannot write '" + name_ + "': " + std::strerror(error_ != 0 ? error_ : EIO);
}

std::string OutputSink::take() {
  std::string text(view());
  buffer_.reset();
  begin_ = cur_ = end_ = nullptr;  // the next append grows a new buffer
  return text;
}

OutputSink& standardOutput() {
  static OutputSink sink(STDOUT_FILENO, "<stdout>", false, kStandardStream);
  return sink;
}

OutputSink& standardError() {
  static OutputSink sink(STDERR_FILENO, "<stderr>", false, kStandardStream);
  return sink;
}

}  // namespace reshardctl
