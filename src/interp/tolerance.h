// When a distributed value "matches" the serial one. Both are computed in
// double, so only summation order separates a correct program from the serial
// one (~1e-15 relative); the default tolerances are the precision of the
// program's own element type, so what is reported is a divergence that would
// show in that type: numpy's allclose, |a - b| <= atol + rtol * |b|.
#pragma once

#include <optional>

#include "ir/dtype.h"

namespace reshardctl {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// f64 1e-9/1e-12, f32 1e-5/1e-6, f16 1e-3/1e-4, bf16 1e-2/1e-3, fp8 1e-1/1e-2,
// integers and bool exact; `rtol`/`atol` (--rtol/--atol) replace them.
Tolerance toleranceFor(DType dtype, std::optional<double> rtol = std::nullopt, std::optional<double> atol = std::nullopt);

// Whether `actual` matches `expected`: within tolerance, or both NaN, or the
// same infinity.
bool withinTolerance(double actual, double expected, const Tolerance& tolerance);

}  // namespace reshardctl
