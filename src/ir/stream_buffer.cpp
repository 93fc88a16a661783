#include "ir/stream_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

namespace reshardctl {

namespace {
constexpr size_t kFirstCapacity = size_t{1} << 20;
constexpr size_t kReadSize = size_t{1} << 20;  // bytes asked of one read()
}  // namespace

StreamBuffer::StreamBuffer(StreamBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

StreamBuffer::~StreamBuffer() {
  if (data_) ::munmap(data_, capacity_);
}

void StreamBuffer::reserve(size_t capacity) {
  if (capacity <= capacity_) return;
  size_t grown = std::max({capacity, capacity_ * 2, kFirstCapacity});
  void* data = data_ ? ::mremap(data_, capacity_, grown, MREMAP_MAYMOVE)
                     : ::mmap(nullptr, grown, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<char*>(data);
  capacity_ = grown;
}

StreamBuffer::Stop StreamBuffer::readAll(int fd, size_t maxBytes, std::string* error) {
  for (;;) {
    // One byte past the limit tells "exactly the limit" from "more than it".
    size_t want = std::min(kReadSize, maxBytes + 1 - size_);
    reserve(size_ + want);
    ssize_t n = ::read(fd, data_ + size_, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::strerror(errno);
      return Stop::ReadError;
    }
    if (n == 0) return Stop::End;
    const char* chunk = data_ + size_;
    size_ += static_cast<size_t>(n);
    if (const void* nul = std::memchr(chunk, '\0', static_cast<size_t>(n))) {
      size_ = static_cast<size_t>(static_cast<const char*>(nul) - data_);
      return Stop::NulByte;
    }
    if (size_ > maxBytes) {
      size_ = maxBytes;
      return Stop::TooLarge;
    }
  }
}

}  // namespace reshardctl
