#include "syntax/text_frame.h"

#include <algorithm>

#include "syntax/program_finder.h"

namespace reshardctl {

namespace {

constexpr size_t kNone = std::string_view::npos;

bool isBlank(std::string_view s) { return s.find_first_not_of(" \t\r") == kNone; }

size_t commonPrefixLength(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// The lines of one slice: views without their "\n" (and "\r" under CRLF).
struct SliceLines {
  std::string_view head;  // the first line's text before the slice
  std::vector<std::string_view> lines;
  std::vector<bool> ended;  // the line had a newline
  bool crlf = false;
};

SliceLines splitSlice(std::string_view source, size_t begin, size_t end) {
  SliceLines s;
  size_t newline = begin == 0 ? kNone : source.rfind('\n', begin - 1);
  size_t lineStart = newline == kNone ? 0 : newline + 1;
  s.head = source.substr(lineStart, begin - lineStart);
  std::string_view slice = source.substr(begin, end - begin);
  size_t withNewline = 0, withCr = 0;
  for (size_t at = 0; at < slice.size();) {
    size_t nl = slice.find('\n', at);
    size_t stop = nl == kNone ? slice.size() : nl;
    s.lines.push_back(slice.substr(at, stop - at));
    s.ended.push_back(nl != kNone);
    if (nl != kNone) {
      ++withNewline;
      if (stop > at && slice[stop - 1] == '\r') ++withCr;
    }
    at = stop + 1;
  }
  // CRLF only when every line ended so: a stray '\r' is whitespace.
  s.crlf = withNewline > 0 && withCr == withNewline;
  if (s.crlf)
    for (size_t i = 0; i < s.lines.size(); ++i)
      if (s.ended[i]) s.lines[i].remove_suffix(1);
  return s;
}

// How long each line's prefix is: a glog prefix where every line has one,
// then the fixed text all lines (those of blanks aside) begin with.
struct PrefixShape {
  bool glog = false;
  std::string_view fixed;  // after the glog prefix, if any
};

size_t patternLength(std::string_view line, bool glog) { return glog ? glogPrefixLength(line) : 0; }

PrefixShape prefixShape(const SliceLines& s) {
  PrefixShape shape;
  bool others = false;
  shape.glog = glogPrefixLength(s.head) > 0;
  for (size_t i = 1; i < s.lines.size() && shape.glog; ++i)
    if (!isBlank(s.lines[i]) && glogPrefixLength(s.lines[i]) == 0) shape.glog = false;
  std::string_view fixed = s.head.substr(patternLength(s.head, shape.glog));
  for (size_t i = 1; i < s.lines.size(); ++i) {
    if (isBlank(s.lines[i])) continue;
    std::string_view rest = s.lines[i].substr(patternLength(s.lines[i], shape.glog));
    if (fixed.substr(0, rest.size()) == rest) continue;  // `332:`: the prefix alone, its blank trimmed
    fixed = fixed.substr(0, commonPrefixLength(fixed, rest));
    others = true;
  }
  shape.fixed = others ? fixed : std::string_view();
  return shape;
}

// The length of `line`'s prefix, or 0 when it has none (a line of blanks, or
// `332:` whose trailing blank an editor took, loses what it has of it).
size_t prefixLength(std::string_view line, const PrefixShape& shape) {
  size_t pattern = patternLength(line, shape.glog);
  std::string_view rest = line.substr(pattern);
  if (rest.substr(0, shape.fixed.size()) == shape.fixed) return pattern + shape.fixed.size();
  std::string_view bare = shape.fixed.substr(0, shape.fixed.find_last_not_of(" \t") + 1);
  if (rest.substr(0, bare.size()) == bare && isBlank(rest.substr(bare.size()))) return line.size();
  return isBlank(line) ? line.size() : pattern;
}

}  // namespace

std::optional<UnframedText> UnframedText::of(std::string_view source, size_t begin, size_t end) {
  // Almost every dump starts at a line's start and ends its lines in LF: one
  // scan for '\r' tells.
  bool atLineStart = begin == 0 || source[begin - 1] == '\n';
  if (atLineStart && source.substr(begin, end - begin).find('\r') == kNone) return std::nullopt;
  SliceLines s = splitSlice(source, begin, end);
  PrefixShape shape = prefixShape(s);
  // Blanks before the opening `{` alone (` {` in a hand-edited dump, its
  // other lines at their own columns): the first line's prefix only.
  const bool blankHeadOnly = !shape.glog && shape.fixed.empty() && !s.head.empty() && isBlank(s.head);
  if (!shape.glog && shape.fixed.empty() && !s.crlf && !blankHeadOnly) return std::nullopt;
  UnframedText u;
  u.frame_.crlf = s.crlf;
  u.text_.reserve(end - begin);
  size_t sliceOffset = 0;
  std::string_view lastPrefix = s.head.substr(0, patternLength(s.head, shape.glog) + shape.fixed.size());
  u.frame_.prefixes.push_back(lastPrefix);
  for (size_t i = 0; i < s.lines.size(); ++i) {
    std::string_view line = s.lines[i];
    size_t strip = i == 0 ? 0 : prefixLength(line, shape);
    if (i > 0 && shape.glog) {
      if (strip > 0 && strip < line.size()) lastPrefix = line.substr(0, strip);
      u.frame_.prefixes.push_back(lastPrefix);
    }
    u.copyStarts_.push_back(u.text_.size());
    u.sourceStarts_.push_back(begin + sliceOffset + strip);
    u.text_.append(line.substr(strip));
    if (s.ended[i]) u.text_ += '\n';
    sliceOffset += line.size() + (s.ended[i] ? (s.crlf ? 2 : 1) : 0);
  }
  if (blankHeadOnly) u.frame_.prefixes = {s.head, std::string_view()};  // the lines after it: none
  return u;
}

size_t UnframedText::sourceOffset(size_t at) const {
  size_t line = static_cast<size_t>(std::upper_bound(copyStarts_.begin(), copyStarts_.end(), at) -
                                    copyStarts_.begin());
  line = line == 0 ? 0 : line - 1;
  return sourceStarts_[line] + (at - copyStarts_[line]);
}

void FrameWriter::write(std::string_view text, std::string& out) {
  const std::vector<std::string_view>& prefixes = frame_.prefixes;
  while (!text.empty()) {
    if (prefixNext_ && !prefixes.empty()) out += prefixes[std::min(line_, prefixes.size() - 1)];
    prefixNext_ = false;
    size_t nl = text.find('\n');
    out.append(text.substr(0, nl));
    if (nl == kNone) return;
    out += frame_.crlf ? "\r\n" : "\n";
    ++line_;
    prefixNext_ = true;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace reshardctl
