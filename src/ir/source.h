// An input program held in memory: a file mapped read-only, or standard input
// read into a buffer. Byte offsets into text() are the positions everything
// else (IR locations, diagnostics) refers to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reshardctl {

class SourceFile {
 public:
  struct LineCol {
    size_t line = 0;    // 1-based
    size_t column = 0;  // 1-based, in bytes
  };

  // Reads `path` ("-" is standard input). On failure returns nullopt and sets
  // `error` to a message naming the file and the reason.
  static std::optional<SourceFile> load(const std::string& path, std::string* error);
  static SourceFile fromString(std::string name, std::string text);

  SourceFile(SourceFile&&) noexcept;
  SourceFile& operator=(SourceFile&&) noexcept;
  ~SourceFile();

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // O(log lines): the first call indexes where every line starts (one pass
  // over the text), so reporting many places never rescans the file.
  LineCol lineCol(size_t offset) const;
  std::string_view lineAt(size_t offset) const;  // without its newline

  // Hints that bytes before `offset` will rarely be read again: the pages of a
  // mapped file are dropped from memory (the kernel reads them back if a
  // diagnostic needs them). Keeps peak memory near the size of the IR.
  void releaseBefore(size_t offset);

 private:
  SourceFile() = default;
  void indexLines() const;
  std::string name_;
  std::string_view text_;
  std::string owned_;           // standard input or fromString
  void* mapping_ = nullptr;     // a mapped file
  size_t mappingSize_ = 0;
  size_t released_ = 0;
  mutable std::vector<size_t> lineStarts_;  // built by the first lineCol()
};

}  // namespace reshardctl
