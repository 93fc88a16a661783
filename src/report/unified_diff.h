// A line diff of two texts in the unified format of `diff -u`, which
// `patch` and `git apply` apply: what `apply --diff` and `diff -u` print.
// (passes/program_diff.h compares programs by structure instead.)
//
// Lines are matched by the one alignment engine (support/sequence_alignment.h):
// Myers' O(ND) algorithm with a trace where the texts differ little, and
// otherwise a split first at lines that occur once in each text (the
// patience heuristic) with Myers between them. The work is bounded by a
// budget proportional to the input: past it, a region between matched lines
// is shown as removed and added whole. The result is always a correct diff;
// it is the shortest one whenever the budget allows.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "ir/source.h"
#include "support/output_sink.h"

namespace reshardctl {

struct UnifiedDiffOptions {
  size_t context = 3;  // unchanged lines around each change
  bool color = false;  // ANSI colours for a terminal
  // The line numbers of each text's first line in the file its header names
  // (a program in a log starts further down): hunks are numbered by the file.
  size_t beforeFirstLine = 1, afterFirstLine = 1;
  // Told, every few MiB, how far the diff has read each text (offsets into
  // `before` and `after`) in each of its two passes (numbering the lines,
  // then writing the hunks, each in order: offsets smaller than the last
  // start the second), so that a caller may let a mapped text's pages behind
  // go (SourceFile::dropPages) and hold the line tables, not both texts.
  std::function<void(size_t before, size_t after)> readPast;
};

// A readPast for texts that are slices of `before` and `after` starting at
// `beforeBegin` and `afterBegin`: the pages behind the diff are dropped.
std::function<void(size_t, size_t)> droppingPagesBehind(const SourceFile& before, size_t beforeBegin,
                                                        const SourceFile& after, size_t afterBegin);

// The diff turning `before` into `after` under the headers
// `--- beforeLabel` and `+++ afterLabel`; empty when the texts are equal.
std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& beforeLabel,
                        const std::string& afterLabel, const UnifiedDiffOptions& options = {});
// The same written to `out` hunk by hunk (memory: the texts' lines and the
// edit script, 40 bytes a line, and the table of distinct lines while they
// are numbered, not the diff's text); nothing when the texts are equal.
void writeUnifiedDiff(std::string_view before, std::string_view after, const std::string& beforeLabel,
                      const std::string& afterLabel, const UnifiedDiffOptions& options, OutputSink& out);

}  // namespace reshardctl
