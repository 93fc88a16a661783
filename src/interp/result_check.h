// Whether one op result, as the ranks hold it, is the serial program's value:
// assembled from its pieces by its declared dist type (or, for a dense value,
// held whole by every rank that ran the op) and compared within tolerance.
#pragma once

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

// nullopt when the result matches; else the divergence, its message naming the
// op, the result and the value ("pd_op.relu result 0 (%9): ...").
// `ranks`: the world indices that ran the op.
std::optional<Divergence> checkResult(const Operation& op, size_t result, const ValueState& state,
                                      const std::vector<size_t>& ranks, ResultCheckContext& context);

// "pd_op.relu result 0 (%9)".
std::string resultLabel(const Operation& op, size_t result, const ValidateOptions& options);

}  // namespace reshardctl
