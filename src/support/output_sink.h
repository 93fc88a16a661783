// Where output goes, and the one buffer on its way there: every byte the tool
// writes (standard output, standard error, an output file, the printer's
// text) passes through an OutputSink. A sink keeps the errno of the first
// failed write (by the time anybody asks, errno has long been overwritten),
// drops what comes after it, and says why in the one message the tool gives:
// "cannot write '<stdout>': No space left on device".
//
// Printing is mostly appending short pieces, so an append is one bounds check
// and a copy; the buffer is handed on only when full or flushed.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace reshardctl {

class OutputSink {
 public:
  // What a sink hands its bytes to when it is neither a descriptor nor memory.
  using Consumer = std::function<void(std::string_view)>;

  // Text kept in memory, growing as needed (take() hands it over).
  OutputSink();
  // Bytes written to `fd` (closed by close() or the destructor when `owned`)
  // `capacity` bytes at a time; `name` is what messages call the destination.
  OutputSink(int fd, std::string name, bool owned = false, size_t capacity = size_t{1} << 20);
  // Bytes handed to `consumer` a buffer at a time.
  explicit OutputSink(Consumer consumer);
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;
  ~OutputSink();  // flushes; closes an owned descriptor

  OutputSink& operator+=(std::string_view piece) {
    if (piece.empty()) return *this;  // its data may be null, which memcpy must not see
    if (static_cast<size_t>(end_ - cur_) < piece.size()) makeRoom(piece.size());
    std::memcpy(cur_, piece.data(), piece.size());
    cur_ += piece.size();
    return *this;
  }
  OutputSink& operator+=(char c) {
    if (cur_ == end_) makeRoom(1);
    *cur_++ = c;
    return *this;
  }
  void append(size_t count, char c) {
    if (static_cast<size_t>(end_ - cur_) < count) makeRoom(count);
    std::memset(cur_, c, count);
    cur_ += count;
  }
  void append(const char* begin, const char* end) { *this += std::string_view(begin, static_cast<size_t>(end - begin)); }
  // A block of any size: one that fills the buffer goes out without a copy.
  void write(std::string_view text);

  // Hands the buffered bytes on; false once any write has failed.
  bool flush();
  // Flushes and closes an owned descriptor; false once any write has failed.
  bool close();
  // The buffer's size: a write() of at least this many bytes to a descriptor
  // or consumer goes out without a copy.
  size_t capacity() const { return static_cast<size_t>(end_ - begin_); }
  bool failed() const { return error_ != 0; }
  int error() const { return error_; }  // errno of the first failure; 0: none
  // "cannot write 'NAME': REASON" for the first failure.
  std::string errorMessage() const;

  // Memory only: the text so far, and handing it over.
  std::string_view view() const { return {begin_, size()}; }
  std::string take();
  void clear() { cur_ = begin_; }  // empties it, keeping the buffer for the next text

 private:
  size_t size() const { return static_cast<size_t>(cur_ - begin_); }
  void makeRoom(size_t needed);
  void grow(size_t needed);
  void deliver(std::string_view bytes);

  // Left uninitialised (not a std::string, whose resize zero-fills): a sink
  // is made for every output, and filling its 1 MiB cost more than a short
  // listing's whole print.
  std::unique_ptr<char[]> buffer_;
  char* begin_ = nullptr;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  int fd_ = -1;
  bool owned_ = false;
  Consumer consumer_;  // set: bytes go there; neither it nor fd_: memory
  std::string name_;
  int error_ = 0;
};

// The process's standard output and standard error: every write to them goes
// through these (flushed at exit, and by the caller where order matters).
OutputSink& standardOutput();
OutputSink& standardError();

}  // namespace reshardctl
