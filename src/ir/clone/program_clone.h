// A deep copy of a Program, for running passes on several copies of one
// program (lower --all-ranks: one copy per rank) without parsing it again.
//
// The graph is the clone's own: its blocks, ops, operands and values (each
// value's id and use list in the same order, block arguments, layout and
// blank lines), so a pass may change the clone freely and the original stays
// as it was. What the original owns and no pass changes is referenced, not
// copied: interned text (names, attribute dictionaries, verbatim spans; so
// source locations stay the same offsets), types (the clone's type table
// adopts the original's, so equal types stay one pointer) and dist attrs.
// Hence the original must outlive its clones (asserted in debug builds).
//
// Work and memory: linear in ops + operands + values, plus the number of
// distinct types (a few hundred); no text is copied.
#pragma once

#include <functional>
#include <memory>

#include "ir/ir.h"

namespace reshardctl {

// The original must hold a graph checkGraph accepts.
std::unique_ptr<Program> cloneProgram(const Program& original);

// The same without the top-level ops `skip` names (lower/rank_slice.h: the
// ops one rank's pruning would erase). No op kept may use a value a skipped
// op defines; uses by skipped ops are left out of the use lists.
using SkipOp = std::function<bool(const Operation&)>;
std::unique_ptr<Program> cloneProgram(const Program& original, const SkipOp& skip);

}  // namespace reshardctl
