// Reads a stream (a pipe, a terminal, a device, standard input) in one pass:
// large read()s straight into an anonymous mapping that grows by mremap,
// which moves pages instead of copying them. The memory held is the bytes
// read (rounded to a page), not a doubling string's up to twice that.
//
// A stream longer than `spillAfter` goes on into an unlinked temporary file
// (in $TMPDIR, else /tmp) instead, which the caller maps (spillFile()): its
// pages can then leave memory once read, as a regular file's do, so a piped
// input costs no more memory than the same input given as a file. Where no
// temporary file can be made or written, the bytes stay in memory.
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
  static constexpr size_t kDefaultSpillAfter = size_t{16} << 20;

  explicit StreamBuffer(size_t spillAfter = kDefaultSpillAfter) : spillAfter_(spillAfter) {}
  StreamBuffer(StreamBuffer&& other) noexcept;
  StreamBuffer& operator=(StreamBuffer&&) = delete;
  StreamBuffer(const StreamBuffer&) = delete;
  ~StreamBuffer();

  // Reads `fd` to its end or to a stop. Throws std::bad_alloc when memory
  // runs out. On Stop::ReadError, `error` holds errno's text.
  Stop readAll(int fd, size_t maxBytes, std::string* error);
  // Adds `bytes` as if read: text the tool writes and reads back (apply
  // --diff's printed program), spilled as a long stream is. False (with
  // errno's text in `error`) where neither the file nor memory can take it.
  bool append(std::string_view bytes, std::string* error);

  // The temporary file holding the stream's first size() bytes, or -1 when
  // they are in memory (bytes()). Owned by the buffer: map it before it goes.
  int spillFile() const { return spill_; }
  size_t size() const { return size_; }
  // The bytes held in memory: empty once spilled.
  std::string_view bytes() const { return spill_ >= 0 ? std::string_view() : std::string_view(data_, size_); }
  // Brings a spilled stream back into memory (when its file cannot be
  // mapped). Returns false, the stream left spilled, if it cannot be read.
  bool unspill();

 private:
  void reserve(size_t capacity);  // grows the mapping to at least `capacity`
  void release();                 // unmaps the memory
  bool startSpill();              // moves the bytes read so far to a temporary file
  bool writeSpill(const char* bytes, size_t count);
  // A write to the temporary file failed (a full disk): the stream goes on in
  // memory, the file's bytes read back and `chunk` after them.
  bool keepInMemory(const char* chunk, size_t count, std::string* error);

  size_t spillAfter_;
  char* data_ = nullptr;
  size_t size_ = 0;  // bytes read, in memory or in the file
  size_t capacity_ = 0;
  int spill_ = -1;
};

}  // namespace reshardctl
