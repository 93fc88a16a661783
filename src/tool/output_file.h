// Output that appears only on success: a regular file is written to a
// temporary file beside it and renamed over it by commit(); without commit()
// nothing changes (an earlier output survives a failed run). "-" is standard
// output; /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N write to
// that open descriptor; a path that is not a regular file (a fifo, /dev/null)
// is written directly; a symlink is followed, so the file it names is replaced
// and the link stays.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

namespace reshardctl {

class OutputFile {
 public:
  // Returns nullopt and sets `error` when the output cannot be created.
  static std::optional<OutputFile> open(const std::string& path, std::string* error);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  ~OutputFile();  // discards the output unless committed

  std::FILE* stream() const { return stream_; }
  // Flushes and publishes the output; returns false (and sets `error`) on failure.
  bool commit(std::string* error);

 private:
  OutputFile() = default;
  std::string path_;
  std::string tempPath_;  // empty when writing directly
  std::FILE* stream_ = nullptr;
  bool ownsStream_ = false;
  bool committed_ = false;
};

}  // namespace reshardctl
