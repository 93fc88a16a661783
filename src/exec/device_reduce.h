// How a Paddle reduce type runs as an NCCL reduction on stored elements, so that
// the GPU gives what the reference executor (reduce_op.h) gives:
// - ANY/ALL: every value is first turned into 0/1 (a kernel), then MAX/MIN.
// - bool: stored as bytes 0/1, so SUM and AVG are logical or (MAX), as the
//   reference's rounding to bool makes them; PRODUCT is logical and.
// - AVG on floats: ncclAvg when the group size is a power of two. NCCL scales
//   each input by 1/n before summing (PreMulSum); for n = 2^k that scaling is exact
//   and commutes with rounding, so it equals the reference's sum-then-divide
//   bit for bit. Other sizes, and integers (where NCCL's SumPostDiv would be a
//   second source of truth), use SUM and then a divide kernel rounding like the
//   reference: the results are then exact on the reference data too.
// Host-only, unit-tested; src/exec/gpu maps DeviceReduceOp to ncclRedOp_t.
#pragma once

#include <cstdint>

#include "ir/dist_attr.h"
#include "ir/dtype.h"

namespace reshardctl {

enum class DeviceReduceOp : uint8_t { Sum, Prod, Max, Min, Avg };

struct DeviceReduce {
  DeviceReduceOp op = DeviceReduceOp::Sum;
  bool logicalFirst = false;  // turn every value into 0/1 before reducing
  int64_t divideBy = 0;       // divide the result by this after reducing (0: don't)
};

DeviceReduce mapReduce(ReduceType type, DType dtype, int64_t groupSize);

}  // namespace reshardctl
