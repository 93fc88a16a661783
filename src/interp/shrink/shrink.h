// `--shrink`: every extent of a program mapped to a smaller one
// consistently, so that `validate` can run a real-sized program. The dims
// fall into classes (dim_classes.h); each class gets one size: its extent
// divided by the largest divisor of the factor that keeps it at least 2 and
// keeps every mesh dim that shards it dividing it (or leaving the same
// remainder: an uneven split stays uneven the same way). Reshape groups keep
// their products and concat/split their sums; a relation that cannot be kept
// is an error at its op, and nothing is changed. The program's types and
// shape attributes are then rewritten through the Rewriter and verified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interp/budget/work_budget.h"
#include "ir/diagnostics.h"
#include "ir/ir.h"

namespace reshardctl {

// Sizes scale by up/down: a shrink is {1, F}; a growth {k, 1} (the tests
// make real-sized copies of small programs with it).
struct DimScale {
  int64_t up = 1;
  int64_t down = 1;
};

struct ShrinkResult {
  bool ok = false;
  const Operation* failedAt = nullptr;  // the op whose relation could not be kept
  std::string error;                    // why (no op named when failedAt is null)
  std::vector<std::pair<int64_t, int64_t>> changes;  // extent → size, largest first, each once
  size_t classes = 0;                                // classes whose size changed
};

// Resizes `program` in place (nothing is changed when it fails). Work and
// memory O(ops + slots + relations).
ShrinkResult resizeProgram(Program& program, DimScale scale);

// What resizing would give, without changing anything: the elements of every
// value after it (the measure `--shrink=auto` chooses its factor by).
std::optional<uint64_t> elementsAfter(const Program& program, DimScale scale);
uint64_t programElements(const Program& program);

// What `--shrink=auto` weighs the program against: validate's --max-work
// and --max-memory, counted as interp/budget/work_budget.h counts them up front.
struct AutoShrinkBudget {
  WorkBudget budget;
  int64_t dynamicDim = 4;  // the size of a -1 dim
  int64_t maxLoopTrips = 1;  // a counted loop's body charged at most this often (validate's loop limit)
};

// `--shrink=auto`: a shrink is chosen when the program's values hold more
// than this many elements in all (256 MiB of doubles, once serially and
// once over the ranks) or its ops exceed request.budget; the factor is the
// smallest power of two (the largest scale) that brings the program under
// both, at most kMaxAutoFactor (past it the budget refuses with the figure).
inline constexpr uint64_t kShrinkBudgetElements = uint64_t{1} << 25;
inline constexpr int64_t kMaxAutoFactor = int64_t{1} << 12;
// The factor for `auto`: 1 when the program fits already. Work: one
// union-find, then O(ops + slots + relations) per power of two tried.
int64_t autoShrinkFactor(const Program& program, const AutoShrinkBudget& limits);

// What `--shrink` asks: auto (the default), off, or one factor.
struct ShrinkRequest {
  enum class Mode : uint8_t { Auto, Off, Factor };
  Mode mode = Mode::Auto;
  int64_t factor = 1;
};

// `--shrink`'s text: "" and "auto", "off", or a factor from 1 to 2^20;
// nullopt for anything else.
std::optional<ShrinkRequest> parseShrinkRequest(std::string_view text);
inline constexpr int64_t kMaxShrinkFactor = int64_t{1} << 20;

// Shrinks `program` as asked and verifies the result. ok false: the error
// (at the op whose relation could not be kept) is in `diagnostics` and the
// program must not be run. line: the report's line after its verb ("at 1/64
// scale: …", validate's "validated …", run's "run …"), "" when not shrunk.
struct ShrinkOutcome {
  bool ok = true;
  std::string line;
  int64_t factor = 1;
};
ShrinkOutcome shrinkProgram(Program& program, const ShrinkRequest& request, DiagnosticEngine& diagnostics,
                            const AutoShrinkBudget& limits = {});

// "at 1/64 scale: 4096→64, 11008→172, …" (the first eight).
std::string shrinkLine(const ShrinkResult& result, DimScale scale);

}  // namespace reshardctl
