// The values program inputs (pd_op.data, builtin.parameter, pd_op.feed, the
// program's own block arguments) start with: deterministic in the seed and the
// input's name, so the same program before and after the partition pass, or
// two runs, read the same data. Floats are uniform in [-1, 1) (both signs, so
// an op that is not linear shows what a partial value does to it); integers
// are 0..3 (valid ids and labels for small tables); bool is 0 or 1.
#pragma once

#include <cstdint>
#include <string_view>

#include "interp/tensor.h"

namespace reshardctl {

// Integer inputs take the values 0 .. kIntegerInputValues-1: ids and labels
// that index any table of at least that many rows.
inline constexpr int64_t kIntegerInputValues = 4;

// `logical`: the values are 0 or 1 whatever the type (bool's rule), for an
// input laid out with an ANY or ALL partial, whose pieces reduce to 0/1 values
// only (interp/layout_pieces.h's pieceOf; reduce_op.h).
Tensor seededTensor(const Shape& shape, DType dtype, uint64_t seed, std::string_view name, bool logical = false);

}  // namespace reshardctl
