// Whether one op result, as the ranks hold it, is the serial program's value:
// assembled from its pieces by its declared dist type (or, for a dense value,
// held whole by every rank that ran the op) and compared within tolerance.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "interp/validation.h"
#include "interp/value_store.h"

namespace reshardctl {

struct ResultCheckContext {
  const RankWorld& world;
  LayoutCache& layouts;
  const ValidateOptions& options;
};

// A check's view of the ranks' pieces: the piece of world index r, or nullptr.
// A check reads each rank at most once, in the order checkOrder gives.
using RankPieces = std::function<const Tensor*(size_t rankIndex)>;

// The world indices a check of `op`'s result reads, in the order it reads them.
std::vector<size_t> checkOrder(const Operation& op, size_t result, const std::vector<size_t>& ranks,
                               ResultCheckContext& context);

// nullopt when the result matches; else the divergence, its message naming the
// op, the result and the value ("pd_op.relu result 0 (%9): ...").
// `ranks`: the world indices that ran the op.
std::optional<Divergence> checkResult(const Operation& op, size_t result, const ValueState& state,
                                      const std::vector<size_t>& ranks, ResultCheckContext& context);
// The same, reading the ranks' pieces through `pieces` (another process's, under mpirun).
std::optional<Divergence> checkResult(const Operation& op, size_t result, const ValueState& state,
                                      const std::vector<size_t>& ranks, ResultCheckContext& context,
                                      const RankPieces& pieces);

// "pd_op.relu result 0 (%9)".
std::string resultLabel(const Operation& op, size_t result, const ValidateOptions& options);

}  // namespace reshardctl
