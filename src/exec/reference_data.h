// Test data for the reference executor (and for `run`): a global tensor, the
// pieces every rank of a layout starts with, and the check that the ranks end
// with the right pieces.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "exec/cpu_executor.h"
#include "exec/piece.h"

namespace reshardctl {

// Small integer values (0/1 with `logicalValues`, as ANY/ALL partials need) so
// that every reduction in every element type is exact and a wrong element shows.
GlobalTensor randomGlobalTensor(const std::vector<int64_t>& shape, DType dtype, bool logicalValues,
                                std::mt19937_64& rng);

// Every rank's piece of `global` under `layout`. Partial mesh dims get random
// pieces that reduce to the value (outermost partial dim split first, see
// reduce_op.h): SUM random addends; AVG the value plus offsets summing to zero;
// MAX/MIN one random rank holds the value, the others values below/above it;
// PRODUCT random factors (powers of two, or ±1 for integers) and the quotient;
// ANY/ALL random bits with one rank fixing the result. Types that cannot hold
// such values (bool, unsigned) fall back to one holder and identities. Above
// an ANY/ALL partial dim (split after it, reduced after it) the pieces are
// what that reduction makes, 0/1, so they are split as bits too: the global
// value of such a layout must be 0/1 (randomGlobalTensor's logicalValues).
// With `kept`, only the kept ranks' pieces (the same values: the random
// splits are drawn for every rank alike).
DistTensor makeSourcePieces(const GlobalTensor& global, const Layout& layout, std::mt19937_64& rng,
                            const KeptRanks& kept = {});

struct PieceCheck {
  double maxError = 0;  // largest |reduced piece value - global value|
  std::string problem;  // empty when every piece is where it should be
  bool ok(double tolerance = 0.0) const { return problem.empty() && maxError <= tolerance; }
};

// |a - b|, 0 for equal values (equal infinities too), infinity where NaN.
double valueDifference(double a, double b);

// Whether every rank of tensor.layout holds exactly its piece of `global`: the
// right box, replicas equal, and partial pieces reducing to the global value.
PieceCheck checkDestinationPieces(const DistTensor& tensor, const GlobalTensor& global);

}  // namespace reshardctl
