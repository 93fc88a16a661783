#include "syntax/program_finder.h"

#include <cctype>

#include "support/text.h"

namespace reshardctl {

namespace {

constexpr std::string_view kModuleLine = "() = \"builtin.module\"";
// A banner's label names the program printed right after it: the banner's
// last rule, an empty line and the module line come between.
constexpr size_t kBannerReach = 4;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// `===-----===`: detail::PrintHeader's rule lines.
bool isBannerRule(std::string_view s) {
  if (s.size() < 7 || s.substr(0, 3) != "===" || s.substr(s.size() - 3) != "===") return false;
  for (char c : s.substr(3, s.size() - 6))
    if (c != '-') return false;
  return true;
}

// The label written before a program's `{` on its first line, without the
// `=` or `:` that joins it to the program.
std::string_view labelBefore(std::string_view textBeforeBrace) {
  std::string_view label = trim(textBeforeBrace);
  while (!label.empty() && (label.back() == '=' || label.back() == ':')) label = trim(label.substr(0, label.size() - 1));
  return label;
}

size_t skipDigits(std::string_view s, size_t i) {
  while (i < s.size() && isDigit(s[i])) ++i;
  return i;
}

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

class Finder {
 public:
  Finder(std::string_view text, const std::function<void(size_t)>& scanned) : text_(text), scanned_(scanned) {}

  std::vector<FoundProgram> run() {
    constexpr size_t kReportEvery = size_t{8} << 20;
    size_t start = 0, reportAt = kReportEvery;
    while (start < text_.size()) {
      if (scanned_ && start >= reportAt) {
        scanned_(start);
        reportAt = start + kReportEvery;
      }
      size_t newline = text_.find('\n', start);
      size_t end = newline == std::string_view::npos ? text_.size() : newline;
      ++lineNumber_;
      line(start, end, newline != std::string_view::npos);
      start = end + 1;
    }
    if (state_ == State::Inside) {  // cut short: the parser reports where
      current_.end = text_.size();
      current_.endLine = lineNumber_;
      current_.closed = false;
      found_.push_back(std::move(current_));
    }
    return std::move(found_);
  }

 private:
  enum class State { Outside, Candidate, Inside };

  void line(size_t start, size_t end, bool hasNewline) {
    std::string_view text = text_.substr(start, end - start);
    if (state_ == State::Candidate) {
      if (trim(text).empty()) return;
      if (!opensBody(text) && !opensWithPrefix(text)) {
        state_ = State::Outside;  // not a program after all: read this line afresh
      } else {
        state_ = State::Inside;
        depth_ = 1;
      }
    }
    if (state_ == State::Inside) return inside(start, text, hasNewline);
    outside(start, text);
  }

  // The first line after a candidate's `{` line, when both begin with the
  // same text and the rest opens the body: that text is the prefix of every
  // line (`332: `, `[rank0]: `), and the label is what follows it.
  bool opensWithPrefix(std::string_view text) {
    std::string_view body = text.substr(glogPrefixLength(text));
    if (opensBody(body)) return true;  // a glog prefix on every line
    size_t common = 0;
    while (common < head_.size() && common < body.size() && head_[common] == body[common]) ++common;
    if (common == 0 || trim(body.substr(0, common)).empty() || !opensBody(body.substr(common))) return false;
    prefix_ = head_.substr(0, common);
    std::string_view label = labelBefore(head_.substr(common));
    std::string_view fallback = fallbackLabel_;
    if (fallback.substr(0, common) == prefix_) fallback = trimStart(fallback.substr(common));
    current_.label = std::string(label.empty() ? fallback : label);
    current_.pass = passNameOf(current_.label);
    // `{` alone after the prefix, right after the module line with the same
    // prefix: the module line is the program's first line.
    if (label.empty() && moduleLine_ + 1 == current_.line && modulePrefix_ == prefix_) {
      current_.begin = moduleLineAt_;
      current_.line = moduleLine_;
    }
    return true;
  }

  // `text` without a glog prefix and the program's prefix, and how much of it went.
  std::string_view unprefixed(std::string_view text, size_t* dropped) const {
    size_t at = glogPrefixLength(text);
    if (!prefix_.empty() && text.substr(at, prefix_.size()) == prefix_) at += prefix_.size();
    *dropped = at;
    return text.substr(at);
  }

  // The first line inside a program: an op, the block arguments, or its end.
  static bool opensBody(std::string_view text) {
    std::string_view t = trim(text);
    return !t.empty() && (t.front() == '(' || t.front() == '^' || t.front() == '}');
  }

  void inside(size_t start, std::string_view line, bool hasNewline) {
    size_t dropped = 0;
    std::string_view text = unprefixed(line, &dropped);
    std::string_view t = trim(text);
    if (t.empty()) return;
    bool closes = t.front() == '}';
    bool opens = t.back() == '{';
    if (t.front() == '(') ++current_.opCount;
    if (!current_.distributed && (t.find("pd_dist.") != std::string_view::npos ||
                                  t.find("op_dist_attr") != std::string_view::npos))
      current_.distributed = true;
    if (closes && depth_ == 1 && !opens) return finish(start, dropped, text, hasNewline);
    depth_ += (opens ? 1 : 0) - (closes ? 1 : 0);
  }

  // The closing line: the program takes it whole when only blanks follow the
  // brace, else it ends at the brace.
  void finish(size_t start, size_t dropped, std::string_view text, bool hasNewline) {
    size_t brace = text.find('}');
    bool restBlank = trim(text.substr(brace + 1)).empty();
    current_.end = restBlank ? start + dropped + text.size() + (hasNewline ? 1 : 0) : start + dropped + brace + 1;
    current_.endLine = lineNumber_;
    found_.push_back(std::move(current_));
    current_ = {};
    prefix_ = {};
    state_ = State::Outside;
  }

  void outside(size_t start, std::string_view text) {
    size_t messageAt = glogPrefixLength(text);
    std::string_view message = text.substr(messageAt);
    std::string_view t = trim(message);
    size_t lead = message.size() - trimStart(message).size();
    bool afterModuleLine = moduleLineAt_ != kNone && moduleLine_ + 1 == lineNumber_ && modulePrefix_.empty();
    // The module line and the banner may carry the prefix a program's lines
    // all carry (`332: `, `[rank0]: `); opensWithPrefix then matches it.
    size_t moduleAt = t.find(kModuleLine);
    size_t ruleAt = t.find("===");
    if (moduleAt != std::string_view::npos) {
      moduleLineAt_ = start + messageAt + lead + moduleAt;
      moduleLine_ = lineNumber_;
      modulePrefix_ = message.substr(0, moduleAt == 0 ? 0 : lead + moduleAt);
    } else if (!t.empty() && t.back() == '{' && t.front() != '(' && t.front() != '}') {  // not `} else {`
      head_ = message.substr(0, lead + t.size() - 1);
      startProgram(start + messageAt + lead, t, afterModuleLine);
    } else if (ruleAt != std::string_view::npos && isBannerRule(t.substr(ruleAt))) {
      noteBannerRule();
    }
    if (!t.empty()) {
      previousText_ = t;
      previousLine_ = lineNumber_;
    }
  }

  // `IRPrinting on ...` between two rules becomes the label in waiting.
  void noteBannerRule() {
    if (lastRuleLine_ != kNone && lastRuleLine_ + 2 == lineNumber_ && previousLine_ + 1 == lineNumber_) {
      bannerLabel_ = std::string(previousText_);
      bannerEndLine_ = lineNumber_;
    }
    lastRuleLine_ = lineNumber_;
  }

  // `t` (trimmed, starting at `at`) ends in '{' and is not an op line.
  void startProgram(size_t at, std::string_view t, bool afterModuleLine) {
    current_ = {};
    std::string_view label = labelBefore(t.substr(0, t.size() - 1));
    bool alone = t.size() == 1;
    current_.begin = at + t.size() - 1;
    current_.line = lineNumber_;
    if (alone && afterModuleLine) {
      current_.begin = moduleLineAt_;
      current_.line = moduleLine_;
    }
    fallbackLabel_.clear();
    if (bannerEndLine_ != kNone && current_.line - bannerEndLine_ <= kBannerReach) {
      fallbackLabel_ = bannerLabel_;
    } else if (previousLine_ + 1 == current_.line && previousText_.back() == ':') {
      fallbackLabel_ = std::string(labelBefore(previousText_));
    }
    current_.label = label.empty() ? fallbackLabel_ : std::string(label);
    current_.pass = passNameOf(current_.label);
    bannerEndLine_ = kNone;
    state_ = State::Candidate;
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);

  std::string_view text_;
  const std::function<void(size_t)>& scanned_;
  std::vector<FoundProgram> found_;
  FoundProgram current_;
  State state_ = State::Outside;
  size_t depth_ = 0;
  size_t lineNumber_ = 0;
  size_t moduleLineAt_ = kNone;  // offset of the last module line's '('
  size_t moduleLine_ = kNone;
  std::string_view modulePrefix_;  // the text before the module line's '(' (a prefix), or empty
  size_t lastRuleLine_ = kNone;
  std::string bannerLabel_;
  std::string fallbackLabel_;  // the banner's or caption's label, for a program whose line has none
  std::string_view head_;      // the candidate's line before its '{' (past a glog prefix)
  std::string_view prefix_;    // the text every line of the program begins with, if any
  size_t bannerEndLine_ = kNone;
  std::string_view previousText_;  // the last line outside programs that was not empty
  size_t previousLine_ = kNone;
};

}  // namespace

std::vector<FoundProgram> findPrograms(std::string_view text, const std::function<void(size_t)>& scanned) {
  return Finder(text, scanned).run();
}

FoundProgram wholeTextAsFragment(std::string_view text) {
  FoundProgram whole;
  whole.end = text.size();
  whole.line = 1;
  whole.label = "(fragment)";
  for (size_t start = 0; start < text.size();) {
    size_t newline = text.find('\n', start);
    std::string_view t = trim(text.substr(start, newline == std::string_view::npos ? text.size() - start : newline - start));
    ++whole.endLine;
    if (!t.empty() && t.front() == '(') ++whole.opCount;
    if (t.find("pd_dist.") != std::string_view::npos || t.find("op_dist_attr") != std::string_view::npos)
      whole.distributed = true;
    if (newline == std::string_view::npos) break;
    start = newline + 1;
  }
  return whole;
}

std::string whyNoProgram(std::string_view text) {
  bool opensSomething = false;
  for (size_t start = 0; start < text.size();) {
    size_t newline = text.find('\n', start);
    std::string_view line = text.substr(start, newline == std::string_view::npos ? text.size() - start : newline - start);
    std::string_view t = trim(line.substr(glogPrefixLength(line)));
    if (t.starts_with("(") && t.find(") = ") != std::string_view::npos)
      return "its lines are op lines without a program's braces (a fragment): read them with --fragment";
    if (!t.empty() && t.back() == '{') opensSomething = true;
    if (newline == std::string_view::npos) break;
    start = newline + 1;
  }
  return opensSomething ? "no line ending in '{' is followed by op lines" : "no line ends in '{'";
}

std::string passNameOf(std::string_view label) {
  for (std::string_view prefix : {"before-apply-", "after-apply-"})
    if (label.substr(0, prefix.size()) == prefix) return std::string(label.substr(prefix.size()));
  // "... before X pass" / "... after X Pass": the word between.
  for (std::string_view when : {" before ", " after "}) {
    size_t at = label.find(when);
    if (at == std::string_view::npos) continue;
    std::string_view rest = label.substr(at + when.size());
    size_t space = rest.find(' ');
    if (space != std::string_view::npos && startsWithNoCase(rest.substr(space), " pass") &&
        rest.size() == space + 5)
      return std::string(rest.substr(0, space));
  }
  return "";
}

PassStage passStageOf(std::string_view label) {
  if (passNameOf(label).empty()) return PassStage::None;
  const bool before = label.substr(0, 13) == "before-apply-" || label.find(" before ") != std::string_view::npos;
  return before ? PassStage::Before : PassStage::After;
}

size_t glogPrefixLength(std::string_view line) {
  // [IWEF]mmdd or [IWEF]yyyymmdd, a time, the thread id, then `file:line] `.
  const char severity = line.empty() ? '\0' : line[0];  // compared, not searched for: once per line of a log
  if (line.size() < 8 || (severity != 'I' && severity != 'W' && severity != 'E' && severity != 'F')) return 0;
  size_t i = skipDigits(line, 1);
  if ((i != 5 && i != 9) || i >= line.size() || line[i] != ' ') return 0;
  size_t time = i + 1;
  i = time;
  while (i < line.size() && (isDigit(line[i]) || line[i] == ':' || line[i] == '.')) ++i;
  if (i - time < 8 || i >= line.size() || line[i] != ' ') return 0;
  while (i < line.size() && line[i] == ' ') ++i;
  size_t thread = i;
  i = skipDigits(line, i);
  if (i == thread || i >= line.size() || line[i] != ' ') return 0;
  size_t close = line.find("] ", i);
  if (close == std::string_view::npos) return 0;
  size_t colon = line.rfind(':', close);
  if (colon == std::string_view::npos || colon < i || skipDigits(line, colon + 1) != close) return 0;
  return close + 2;
}

}  // namespace reshardctl
