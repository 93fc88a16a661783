#include "ir/line_table.h"

#include <algorithm>
#include <cstring>

namespace reshardctl {

namespace {
// Scans at least this much past the last lookup, so lookups that walk forward
// through a file (diagnostics in file order) each scan little.
constexpr size_t kScanAhead = size_t{1} << 20;
}  // namespace

void LineTable::scanLocked(size_t offset) {
  offset = std::min(offset, text_.size());
  if (offset <= scanned_) return;
  const char* base = text_.data();
  const char* end = base + offset;
  for (const char* p = base + scanned_; p < end;) {
    const void* found = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!found) break;
    p = static_cast<const char*>(found) + 1;
    starts_.push_back(static_cast<size_t>(p - base));
  }
  scanned_ = offset;
}

void LineTable::scanTo(size_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  scanLocked(offset);
}

LineTable::Position LineTable::locate(size_t offset, Scan* scan) {
  std::lock_guard<std::mutex> lock(mutex_);
  offset = std::min(offset, text_.size());
  if (scan) scan->from = scanned_;
  // The newline ending the line before `offset` must be seen: scan to offset.
  if (offset >= scanned_) scanLocked(std::max(offset + 1, scanned_ + kScanAhead));
  if (scan) scan->to = scanned_;
  // The last line start at or before `offset`.
  auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
  size_t index = static_cast<size_t>(after - starts_.begin()) - 1;
  return Position{index + 1, starts_[index]};
}

}  // namespace reshardctl
