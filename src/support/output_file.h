// Output that appears only on success: a regular file is written to a
// temporary file beside it (a short hidden name, `.reshardctl-XXXXXX`, so
// output names up to the system's limit work) and published by commit();
// without commit() nothing changes (an earlier output survives a failed run),
// and a SIGINT/SIGTERM/SIGHUP removes the temporary file (a handler that
// unlinks it and dies of the signal still).
//
// Publishing keeps what the replaced file was: its mode and owner are given
// to the temporary file, which is renamed over it (atomic). When that would
// lose something — the file has other hard links, or its owner cannot be
// given (not root) — the complete output is copied into the file in place
// instead, after space for it is reserved, so the file keeps its inode.
//
// "-" is standard output; /dev/stdout, /dev/stderr, /dev/fd/N and
// /proc/self/fd/N write to that open descriptor; a path that is not a
// regular file (a fifo, /dev/null) is written directly; symlinks are followed
// (also to a target that does not exist yet, which is created), so the file
// they name is replaced and the links stay. Every write error is reported
// with its reason ("No space left on device").
//
// What may be written is what the shell's `>` may write (SECURITY.md): a
// file we may not write (0444; root may) is refused; a symlink in a sticky
// world-writable folder (/tmp) is not followed unless we or the folder's
// owner own it (the kernel's fs.protected_symlinks rule, applied whatever the
// sysctl says); a writable file in a folder where no temporary file can be
// created is written in place, from a temporary file in $TMPDIR or /tmp.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

#include "support/output_sink.h"

namespace reshardctl {

class OutputFile {
 public:
  // Returns nullopt and sets `error` when the output cannot be created.
  static std::optional<OutputFile> open(const std::string& path, std::string* error);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  ~OutputFile();  // discards the output unless committed

  // Where the output is written (support/output_sink.h).
  OutputSink& sink() const { return *sink_; }
  // Flushes and publishes the output; returns false (and sets `error`) on failure.
  bool commit(std::string* error);
  // Gives the output up: nothing is published. Sets `error` to why writing
  // failed, when it did (a full disk, a closed pipe), else leaves it alone.
  void abandon(std::string* error);

 private:
  OutputFile();
  bool closeSink(std::string* error);
  bool publish(std::string* error);
  bool copyInPlace(std::string* error);
  bool copyTempOver(std::string* error);

  std::string requested_;  // the name given, for messages
  std::string path_;       // the file published (symlinks followed)
  std::string tempPath_;   // empty when writing directly
  int guardSlot_ = -1;     // tempPath_'s slot among those removed on a signal
  bool inPlace_ = false;   // publish by copying into path_ (keeps its inode)
  std::unique_ptr<OutputSink> sink_;  // over the descriptor, which it closes
  bool closedSink_ = false;
  bool committed_ = false;
};

}  // namespace reshardctl
