// How a program's lines sit in the text that holds it, apart from the program:
// a text repeated at the start of every line (a log's `332: ` or `[rank0]: `,
// a glog prefix `I1201 12:00:00.123456 1234 file.cc:12] `, the indentation of
// a docstring), and CRLF line ends. The parser reads the program without them
// (a copy of the slice, offsets mapped back, so diagnostics keep the host's
// lines and columns); the printer writes them back (docs/format.md, "Framed
// programs").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace reshardctl {

struct TextFrame {
  // The prefix of each line of the slice, the first line's taken from the
  // text before the slice; a single entry when every line has the same one.
  std::vector<std::string_view> prefixes;  // views into the source
  bool crlf = false;
};

// The slice [begin, end) of `source` with its frame removed. Memory: one copy
// of the slice and two offsets a line.
class UnframedText {
 public:
  // nullopt when the slice has no frame (no prefix on its lines, LF ends): it
  // is parsed in place.
  static std::optional<UnframedText> of(std::string_view source, size_t begin, size_t end);

  std::string_view text() const { return text_; }
  const TextFrame& frame() const { return frame_; }
  // The source offset of byte `at` of text(): O(log lines).
  size_t sourceOffset(size_t at) const;

 private:
  std::string text_;
  std::vector<size_t> copyStarts_;    // where each line starts in text_
  std::vector<size_t> sourceStarts_;  // and in the source (past its prefix)
  TextFrame frame_;
};

// Writes `text` (lines ended by "\n") with `frame`'s prefixes and line ends.
// Kept across calls, so a program can be written in pieces of whole lines.
class FrameWriter {
 public:
  FrameWriter(TextFrame frame, bool firstLinePrefix) : frame_(std::move(frame)), prefixNext_(firstLinePrefix) {}
  void write(std::string_view text, std::string& out);

 private:
  TextFrame frame_;
  size_t line_ = 0;
  bool prefixNext_;
};

}  // namespace reshardctl
