// Where each line of a text starts, so that the line of a byte offset is a
// binary search (O(log lines)) instead of a count of newlines from the start.
// The table grows lazily: a lookup scans only the text not seen yet, so a
// run that never asks for a line never pays for the scan, and a run that asks
// for many pays for one pass over the text in all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

namespace reshardctl {

class LineTable {
 public:
  struct Position {
    size_t line = 0;       // 1-based
    size_t lineStart = 0;  // offset of the line's first byte
  };

  explicit LineTable(std::string_view text) : text_(text) {}

  // The bytes a lookup read to extend the table: [from, to).
  struct Scan {
    size_t from = 0, to = 0;
  };

  // The line holding `offset` (clamped to the text's size). Thread-safe.
  // `scan`, when given, receives the bytes this lookup read.
  Position locate(size_t offset, Scan* scan = nullptr);
  // Records every line start before `offset` now (e.g. while the bytes are
  // still in memory, before a mapped file's pages are dropped).
  void scanTo(size_t offset);

 private:
  void scanLocked(size_t offset);

  std::string_view text_;
  std::mutex mutex_;
  std::vector<size_t> starts_{0};  // starts_[i]: offset where line i+1 starts
  size_t scanned_ = 0;             // every newline before this offset is in starts_
};

}  // namespace reshardctl
