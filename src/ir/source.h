// An input program held in memory: a regular file mapped read-only (guarded
// against truncation, file_mapping.h), or a stream (standard input, a pipe, a
// device) read into memory (stream_buffer.h). Byte offsets into text() are
// the positions everything else (IR locations, diagnostics) refers to; line
// numbers come from a table of line starts (line_table.h), so each lookup is
// O(log lines).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reshardctl {

class FileMapping;
class LineTable;
class StreamBuffer;

// Offsets are 32-bit in the IR (Operation::location), so no input can be
// larger than this; a smaller limit can be asked for.
inline constexpr size_t kMaxSourceBytes = (size_t{1} << 32) - 1;

struct SourceLoadOptions {
  size_t maxBytes = kMaxSourceBytes;  // clamped to kMaxSourceBytes
  // A stream longer than this is spilled to a temporary file and mapped
  // (stream_buffer.h): its pages leave memory once parsed, as a file's do.
  size_t spillAfter = size_t{16} << 20;
};

class SourceFile {
 public:
  struct LineCol {
    size_t line = 0;    // 1-based
    size_t column = 0;  // 1-based, in bytes
  };

  static constexpr size_t kMaxInputBytes = kMaxSourceBytes;
  using LoadOptions = SourceLoadOptions;

  // Why reading stopped before the input's end: the input is larger than the
  // limit (an endless stream), or a stream holds binary data. text() holds
  // the bytes before `offset`, where the error is to be shown.
  struct Cutoff {
    size_t offset = 0;
    std::string message;
  };

  // Reads `path` ("-" is standard input). On failure returns nullopt and sets
  // `error` to a message naming the file and the reason. Throws
  // std::bad_alloc when memory runs out.
  static std::optional<SourceFile> load(const std::string& path, std::string* error,
                                        const LoadOptions& options = {});
  static SourceFile fromString(std::string name, std::string text);
  // The bytes of `stream` (StreamBuffer::append), mapped from its temporary
  // file where it spilled to one, so that their pages can leave memory once
  // read (dropPages); nullopt (errno set) where that file cannot be read back.
  static std::optional<SourceFile> fromStream(std::string name, std::unique_ptr<StreamBuffer> stream);

  SourceFile(SourceFile&&) noexcept;
  SourceFile& operator=(SourceFile&&) noexcept;
  ~SourceFile();

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // O(log lines): the first call indexes where every line starts (one pass
  // over the text), so reporting many places never rescans the file.
  LineCol lineCol(size_t offset) const;
  // The line holding `offset`, without its newline; cut `maxAfter` bytes after
  // `offset` when it runs on: a diagnostic needs only the bytes around its
  // column, and reading to the end of a 1 MB line for each of the many
  // diagnostics on it would be quadratic.
  std::string_view lineAt(size_t offset, size_t maxAfter = std::string_view::npos) const;

  // Hints that bytes before `offset` will rarely be read again: the pages of a
  // mapped file are dropped from memory (the kernel reads them back if a
  // diagnostic needs them), after their line starts are recorded. Keeps peak
  // memory near the size of the IR.
  void releaseBefore(size_t offset);
  // The pages of [begin, end) of a mapped file leave memory until read again
  // (FileMapping::dropPages); nothing for text held in memory. Returns where
  // the next such call may begin so that no page is left behind (`end` on a
  // page boundary, or `begin` when nothing was dropped). A hint about memory
  // (the text is unchanged), so a reader of a const file may give it.
  size_t dropPages(size_t begin, size_t end) const;

  const std::optional<Cutoff>& cutoff() const { return cutoff_; }
  // A mapped file that shrank (or failed to read) while it was read: the
  // offset from which its bytes read as zeros. Check after using the text.
  std::optional<size_t> truncatedAt() const;

 private:
  SourceFile();
  void setText(std::string_view text);
  // Where the line holding `offset` starts (and its number, into `line`).
  size_t lineStart(size_t offset, size_t* line) const;
  // The stream read: its temporary file mapped where it spilled to one (read
  // back into memory if mapping fails), else its bytes. False: unreadable.
  bool mapSpilledStream();

  std::string name_;
  std::string_view text_;
  std::unique_ptr<std::string> ownedString_;  // fromString
  std::unique_ptr<StreamBuffer> stream_;      // a stream read into memory
  std::unique_ptr<FileMapping> mapping_;      // a mapped regular file
  std::unique_ptr<LineTable> lines_;
  std::optional<Cutoff> cutoff_;
};

}  // namespace reshardctl
