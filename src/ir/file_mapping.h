// A regular file mapped read-only, guarded against the file shrinking while
// it is mapped. Reading a mapped page that lies past a truncated file's new
// end raises SIGBUS, which would kill the tool. While any FileMapping exists,
// a SIGBUS handler checks whether the faulting address lies in one; if so it
// puts zero-filled pages over the rest of that mapping and records where the
// file's bytes stopped, and the read goes on (finding zeros). The owner asks
// truncatedAt() once it has read what it needs and reports the truncation.
// Faults anywhere else go to the handler that was there before (or kill the
// process as SIGBUS always did).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace reshardctl {

class FileMapping {
 public:
  // Maps the first `size` bytes of the regular file `fd` (size > 0). Returns
  // nullptr when the file cannot be mapped (or every guard slot is taken);
  // the caller then reads the file instead.
  static std::unique_ptr<FileMapping> map(int fd, size_t size);
  ~FileMapping();
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;

  std::string_view bytes() const;
  // Drops the pages wholly inside [0, end) from memory; the kernel reads them
  // back from the file if they are read again.
  void releaseBefore(size_t end);
  // Drops the pages wholly inside [begin, end) for now: a first pass over the
  // file (finding the programs in a log) leaves nothing resident behind it.
  // Unlike releaseBefore, the pages count as needed again later. Returns
  // `end` rounded down to a page (at least `begin`): where a reader moving
  // forward drops from next, leaving no page behind.
  size_t dropPages(size_t begin, size_t end);
  // The offset from which the file's bytes were found missing (it was
  // truncated, or could not be read, while mapped); nullopt if none were.
  std::optional<size_t> truncatedAt() const;

 private:
  FileMapping() = default;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
  int slot_ = -1;  // the guard's slot for this mapping
};

}  // namespace reshardctl
