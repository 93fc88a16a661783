// A semantic diff of two programs: ops are aligned per block by structure,
// not by text, so renumbered values are no difference. Values correspond when
// their defining ops were matched (result i ↔ result i) or they are the same
// argument of matched blocks.
//
// Alignment: a weighted longest common subsequence over each block's ops.
// Two ops can be paired only when their names and region counts agree; a pair
// scores more when its attributes and types agree, and more again when the
// ops it reads from are alike all the way up (a hash over the op's input
// cone). So an inserted op shows as added, and the op whose operand it feeds
// shows as changed rather than removed and re-added. Blocks too large for
// that table are aligned in near-linear time (DiffOptions::maxAlignmentCells).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/source.h"

namespace reshardctl {

struct DiffOptions {
  std::vector<std::string> ignoredAttributes;  // keys left out of every comparison
  // Up to this many table cells (per block, after trimming equal ends) the
  // alignment is the exact weighted one. Larger blocks are aligned by Myers'
  // O(ND) algorithm on the ops' own text (support/sequence_alignment.h), the gaps it
  // leaves by the table when they fit, else greedily: time near-linear when
  // few ops differ, never quadratic.
  size_t maxAlignmentCells = size_t{1} << 22;
};

struct OpChange {
  enum class Kind { Added, Removed, Changed };
  Kind kind = Kind::Changed;
  const Operation* before = nullptr;  // Removed, Changed
  const Operation* after = nullptr;   // Added, Changed
  // Changed: what differs, e.g. "attribute stop_gradient", "operand 0",
  // "operand 0 type", "result 1 type", "operand count".
  std::vector<std::string> differences;
};

struct ProgramDiff {
  std::vector<OpChange> changes;  // in file order
  size_t beforeOps = 0;           // nested ops included
  size_t afterOps = 0;

  bool equal() const { return changes.empty(); }
  size_t count(OpChange::Kind kind) const;
};

ProgramDiff diffPrograms(const Program& before, const Program& after, const DiffOptions& options);

// The listing of the changes, which is no patch (`diff -u` prints one):
//   old: A
//   new: B
//   changed pd_op.relu: operand 0, operand 0 type
//     old 11 |     (%9) = "pd_op.relu" (%8) ...
//     new 12 |     (%10) = "pd_op.relu" (%9) ...
// one heading per change (added NAME, removed NAME, changed NAME: what) and
// the op's line in each file, numbered.
std::string formatDiff(const ProgramDiff& diff, const SourceFile& before, const SourceFile& after);
// The same listing handed to `write` one change at a time.
void writeDiff(const ProgramDiff& diff, const SourceFile& before, const SourceFile& after,
               const std::function<void(std::string_view)>& write);
// One line: "2 ops added, 0 removed, 2 changed (29 ops -> 31 ops)".
std::string formatDiffStat(const ProgramDiff& diff);

}  // namespace reshardctl
