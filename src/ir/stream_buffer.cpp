#include "ir/stream_buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace reshardctl {

namespace {
constexpr size_t kFirstCapacity = size_t{1} << 20;
constexpr size_t kReadSize = size_t{1} << 20;  // bytes asked of one read()

// An unlinked file in $TMPDIR (else /tmp): it goes with its last descriptor
// and mapping, whatever way the process ends. -1 where none can be made.
int openTemporaryFile() {
  const char* dir = std::getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  return ::open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}
}  // namespace

StreamBuffer::StreamBuffer(StreamBuffer&& other) noexcept
    : spillAfter_(other.spillAfter_),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      spill_(std::exchange(other.spill_, -1)) {}

StreamBuffer::~StreamBuffer() {
  release();
  if (spill_ >= 0) ::close(spill_);
}

void StreamBuffer::release() {
  if (data_) ::munmap(data_, capacity_);
  data_ = nullptr;
  capacity_ = 0;
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

bool StreamBuffer::writeSpill(const char* bytes, size_t count) {
  while (count > 0) {
    ssize_t n = ::write(spill_, bytes, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    count -= static_cast<size_t>(n);
  }
  return true;
}

bool StreamBuffer::startSpill() {
  spillAfter_ = SIZE_MAX;  // tried once: a failure leaves the stream in memory
  spill_ = openTemporaryFile();
  if (spill_ < 0) return false;
  if (!writeSpill(data_, size_)) {
    ::close(spill_);
    spill_ = -1;
    return false;
  }
  // From here the mapping is only where each read lands: shrunk in place,
  // its pages past one read go back to the system.
  if (capacity_ > kReadSize && ::mremap(data_, capacity_, kReadSize, 0) != MAP_FAILED) capacity_ = kReadSize;
  return true;
}

bool StreamBuffer::unspill() {
  if (spill_ < 0) return true;
  const size_t size = size_;
  release();
  reserve(size);
  for (size_t done = 0; done < size;) {
    ssize_t n = ::pread(spill_, data_ + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  ::close(spill_);
  spill_ = -1;
  return true;
}

StreamBuffer::Stop StreamBuffer::readAll(int fd, size_t maxBytes, std::string* error) {
  for (;;) {
    // One byte past the limit tells "exactly the limit" from "more than it".
    size_t want = std::min(kReadSize, maxBytes + 1 - size_);
    if (spill_ < 0 && size_ >= spillAfter_) startSpill();
    if (spill_ < 0) reserve(size_ + want);
    char* chunk = spill_ >= 0 ? data_ : data_ + size_;
    ssize_t n = ::read(fd, chunk, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::strerror(errno);
      return Stop::ReadError;
    }
    if (n == 0) return Stop::End;
    const void* nul = std::memchr(chunk, '\0', static_cast<size_t>(n));
    const size_t kept = nul ? static_cast<size_t>(static_cast<const char*>(nul) - chunk) : static_cast<size_t>(n);
    if (spill_ >= 0 && !writeSpill(chunk, kept) && !keepInMemory(chunk, kept, error)) return Stop::ReadError;
    size_ += kept;
    if (nul) return Stop::NulByte;
    if (size_ > maxBytes) {
      size_ = maxBytes;
      return Stop::TooLarge;
    }
  }
}

bool StreamBuffer::append(std::string_view bytes, std::string* error) {
  if (spill_ < 0 && size_ + bytes.size() > spillAfter_) startSpill();
  if (spill_ >= 0) {
    if (!writeSpill(bytes.data(), bytes.size()) && !keepInMemory(bytes.data(), bytes.size(), error)) return false;
  } else {
    reserve(size_ + bytes.size());
    std::memcpy(data_ + size_, bytes.data(), bytes.size());
  }
  size_ += bytes.size();
  return true;
}

bool StreamBuffer::keepInMemory(const char* chunk, size_t count, std::string* error) {
  std::string pending(chunk, count);  // the read's buffer is remapped below
  if (!unspill()) {
    *error = std::string("cannot read back its temporary copy: ") + std::strerror(errno);
    return false;
  }
  reserve(size_ + count);
  std::memcpy(data_ + size_, pending.data(), count);
  return true;
}

}  // namespace reshardctl
