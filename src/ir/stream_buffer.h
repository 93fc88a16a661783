// Reads a stream (a pipe, a terminal, a device, standard input) into memory
// in one pass: large read()s straight into an anonymous mapping that grows by
// mremap, which moves pages instead of copying them. The memory held is the
// bytes read (rounded to a page), not a doubling string's up to twice that.
//
// Reading stops early, leaving what was read so far, when the stream goes on
// past `maxBytes` (an endless FIFO) or holds a NUL byte (binary data such as
// /dev/zero: no program dump has one).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reshardctl {

class StreamBuffer {
 public:
  enum class Stop { End, TooLarge, NulByte, ReadError };

  StreamBuffer() = default;
  StreamBuffer(StreamBuffer&& other) noexcept;
  StreamBuffer& operator=(StreamBuffer&&) = delete;
  StreamBuffer(const StreamBuffer&) = delete;
  ~StreamBuffer();

  // Reads `fd` to its end or to a stop. Throws std::bad_alloc when memory
  // runs out. On Stop::ReadError, `error` holds errno's text.
  Stop readAll(int fd, size_t maxBytes, std::string* error);

  std::string_view bytes() const { return {data_, size_}; }

 private:
  void reserve(size_t capacity);  // grows the mapping to at least `capacity`

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace reshardctl
