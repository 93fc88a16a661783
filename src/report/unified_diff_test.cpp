#include <doctest/doctest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "report/unified_diff.h"

namespace reshardctl {

namespace {

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out.emplace_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

// Applies a unified diff as patch(1) would, hunk by hunk, checking that every
// context and removed line is where the hunk says; "" and FAIL otherwise.
std::string applyPatch(const std::string& before, const std::string& patch) {
  const std::vector<std::string> source = lines(before);
  const std::vector<std::string> hunks = lines(patch);
  std::string out;
  size_t next = 0;  // next source line to copy
  for (size_t i = 2; i < hunks.size();) {
    size_t oldStart = 0, oldCount = 1, newStart = 0, newCount = 1;
    const std::string& header = hunks[i++];
    REQUIRE(header.rfind("@@ -", 0) == 0);
    std::sscanf(header.c_str(), "@@ -%zu", &oldStart);
    const size_t comma = header.find(',');
    if (comma != std::string::npos && comma < header.find(' ', 4)) std::sscanf(header.c_str() + comma, ",%zu", &oldCount);
    (void)newStart, (void)newCount;
    const size_t first = oldCount == 0 ? oldStart : oldStart - 1;
    REQUIRE(first >= next);
    for (; next < first; ++next) out += source[next];
    while (i < hunks.size() && hunks[i].rfind("@@", 0) != 0) {
      std::string line = hunks[i++];
      const bool noNewline = i < hunks.size() && hunks[i].rfind("\\ No newline", 0) == 0;
      if (noNewline) ++i;
      const char kind = line[0];
      std::string text = line.substr(1);
      if (noNewline) text.pop_back();
      if (kind == ' ' || kind == '-') {
        REQUIRE(next < source.size());
        REQUIRE(source[next] == text);
        ++next;
      }
      if (kind == ' ' || kind == '+') out += text;
    }
  }
  for (; next < source.size(); ++next) out += source[next];
  return out;
}

size_t changedLines(const std::string& patch) {
  size_t count = 0;
  for (const std::string& line : lines(patch))
    if ((line[0] == '+' || line[0] == '-') && line.rfind("+++", 0) != 0 && line.rfind("---", 0) != 0) ++count;
  return count;
}

size_t lcs(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<size_t>> t(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

}  // namespace

TEST_CASE("unified diff: how far it has read each text, in two passes, the patch unchanged") {
  std::string before, after;
  for (int i = 0; i < 200000; ++i) {
    before += "line " + std::to_string(i) + " of a text long enough to be read in steps\n";
    after += "line " + std::to_string(i % 7 == 0 ? i + 1 : i) + " of a text long enough to be read in steps\n";
  }
  std::vector<std::pair<size_t, size_t>> told;
  UnifiedDiffOptions options;
  options.readPast = [&](size_t b, size_t a) { told.emplace_back(b, a); };
  CHECK(unifiedDiff(before, after, "x", "x", options) == unifiedDiff(before, after, "x", "x"));
  REQUIRE(told.size() >= 8);  // 2 MiB steps over 2 x 14 MB, twice
  size_t passes = 1;
  for (size_t i = 1; i < told.size(); ++i) {
    CHECK(told[i].first <= before.size());
    CHECK(told[i].second <= after.size());
    if (told[i].first < told[i - 1].first) ++passes;  // the hunks start from the beginning again
  }
  CHECK(passes == 2);
  CHECK(told.back().first > before.size() / 2);
}

TEST_CASE("equal texts have no diff") { CHECK(unifiedDiff("a\nb\n", "a\nb\n", "x", "x").empty()); }

TEST_CASE("a changed line with context, as diff -u writes it") {
  CHECK(unifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n", "a.ir", "b.ir") ==
        "--- a.ir\n+++ b.ir\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST_CASE("texts that start further down their file (a log's programs) are numbered by the file's lines") {
  UnifiedDiffOptions options;
  options.beforeFirstLine = 10;
  options.afterFirstLine = 40;
  CHECK(unifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n", "run.log", "run.log", options) ==
        "--- run.log\n+++ run.log\n@@ -11,7 +41,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  CHECK(unifiedDiff("", "a\n", "x", "x", options) == "--- x\n+++ x\n@@ -9,0 +40 @@\n+a\n");
}

TEST_CASE("an empty side names the line before it; one line has no count") {
  CHECK(unifiedDiff("", "a\nb\n", "x", "x") == "--- x\n+++ x\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  CHECK(unifiedDiff("a\n", "", "x", "x") == "--- x\n+++ x\n@@ -1 +0,0 @@\n-a\n");
}

TEST_CASE("a last line without newline is marked") {
  CHECK(unifiedDiff("a\nb", "a\nb\n", "x", "x") ==
        "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

TEST_CASE("changes far apart make separate hunks, near ones one") {
  std::string before, after;
  for (int i = 0; i < 30; ++i) before += std::to_string(i) + "\n";
  after = before;
  after.replace(after.find("2\n"), 2, "two\n");
  after.replace(after.find("25\n"), 3, "twenty-five\n");
  const std::string patch = unifiedDiff(before, after, "x", "x");
  CHECK(patch.find("@@ -1,6 +1,6 @@") != std::string::npos);
  CHECK(patch.find("@@ -23,7 +23,7 @@") != std::string::npos);
  CHECK(applyPatch(before, patch) == after);
}

TEST_CASE("random edits: the diff applies and is the shortest") {
  std::mt19937 random(7);
  for (int round = 0; round < 400; ++round) {
    auto text = [&](size_t n) {
      std::string out;
      for (size_t i = 0; i < n; ++i) out += std::string(1, static_cast<char>('a' + random() % 4)) + "\n";
      if (random() % 5 == 0 && !out.empty()) out.pop_back();  // no newline at the end
      return out;
    };
    const std::string before = text(random() % 30), after = text(random() % 30);
    UnifiedDiffOptions options;
    options.context = random() % 4;
    const std::string patch = unifiedDiff(before, after, "x", "x", options);
    if (before == after) {
      CHECK(patch.empty());
      continue;
    }
    INFO("before:\n" << before << "\nafter:\n" << after << "\npatch:\n" << patch);
    CHECK(applyPatch(before, patch) == after);
    const std::vector<std::string> a = lines(before), b = lines(after);
    CHECK(changedLines(patch) == a.size() + b.size() - 2 * lcs(a, b));
  }
}

TEST_CASE("a large text changed everywhere stays correct and quick") {
  std::string before, after;
  for (int i = 0; i < 200000; ++i) {
    before += "(%" + std::to_string(i) + ") = op\n";
    after += "(%" + std::to_string(i + (i > 100 ? 1 : 0)) + ") = op\n";
    if (i == 100) after += "(%101) = reshard\n";
  }
  const std::string patch = unifiedDiff(before, after, "x", "x");
  CHECK(applyPatch(before, patch) == after);
}

}  // namespace reshardctl

namespace reshardctl {

// The worst cases for the matcher: no line in common, and every line moved.
// The work budget keeps them linear; the diff stays correct.
TEST_CASE("texts with nothing in common, or reordered, stay correct and quick") {
  std::string before, after, reversed;
  for (int i = 0; i < 100000; ++i) {
    before += "a" + std::to_string(i) + "\n";
    after += "b" + std::to_string(i) + "\n";
  }
  for (int i = 99999; i >= 0; --i) reversed += "a" + std::to_string(i) + "\n";
  CHECK(applyPatch(before, unifiedDiff(before, after, "x", "x")) == after);
  CHECK(applyPatch(before, unifiedDiff(before, reversed, "x", "x")) == reversed);
}

}  // namespace reshardctl
