// SSA graph → text, exactly as Paddle's IrPrinter writes it (docs/format.md):
// values are numbered %0, %1, ... in the order they are first printed.
#pragma once

#include <cstdio>
#include <string>

#include "ir/ir.h"

namespace reshardctl {

// Buffered output to a FILE*, so printing a large program makes few syscalls
// and never holds the whole text in memory.
class OutputBuffer {
 public:
  explicit OutputBuffer(std::FILE* file) : file_(file) { buffer_.reserve(kFlushAt + 4096); }
  ~OutputBuffer() { flush(); }
  void append(std::string_view text) {
    if (buffer_.empty() && text.size() >= kFlushAt) {
      write(text);  // already a large block: no copy into the buffer
      return;
    }
    buffer_ += text;
    if (buffer_.size() >= kFlushAt) flush();
  }
  void flush();
  bool failed() const { return failed_; }

 private:
  void write(std::string_view text);

  static constexpr size_t kFlushAt = 1 << 20;
  std::FILE* file_;
  std::string buffer_;
  bool failed_ = false;
};

struct PrintOptions {
  // A program read with a frame (a prefix on its lines, CRLF: text_frame.h)
  // prints with it; the first line's prefix is left out where the text
  // before the program is written already (a log written back).
  bool firstLinePrefix = true;
};

// Prints the whole program; returns false if writing failed.
bool printProgram(const Program& program, std::FILE* out, const PrintOptions& options = {});
std::string printProgramToString(const Program& program, const PrintOptions& options = {});

// Numbers values as the printer does, for tools that name values in reports
// (e.g. "%9"): one walk, results by print order, block arguments apart.
class ValueNames {
 public:
  explicit ValueNames(const Program& program);
  std::string name(const Value* value) const;

 private:
  std::vector<uint32_t> numbers_;
};

}  // namespace reshardctl
