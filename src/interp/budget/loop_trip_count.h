// How often a pd_op.while runs, where every rank can tell before the run:
// its condition and its counter come from constants (pd_op.full, the same
// on every rank), in the form a counted loop prints in
//   %i0 = full(a)  %n = full(l)  %c0 = less_than(%i0, %n)   (or %c0 = full(true|false))
//   while (cond=%c0, inputs=..., %i0, ...) { ^..., %i, ...
//     %i1 = increment(%i, value=s)  or  add(%i, full(s))
//     %c1 = less_than(%i1, full(l))
//     cf.yield (%c1, ..., %i1, ...) }
// with less_than, less_equal, greater_than, greater_equal or not_equal
// (WhileOp::Print, docs/format.md: the body's arguments are the inputs, the
// yield hands back the next condition, then the next inputs).
#pragma once

#include <cstdint>
#include <optional>

#include "ir/ir.h"

namespace reshardctl {

// The loop's trip count in that form, nullopt for any other loop. A count
// above `cap` means "more than cap" (the count stops at cap + 1; a loop that
// never ends is one). O(body ops): the count is computed, not run.
// Used by schedule (which expands such loops) and by validate's up-front
// work budget (which charges the body once per trip).
std::optional<int64_t> staticTripCount(const Operation& loop, int64_t cap);

}  // namespace reshardctl
