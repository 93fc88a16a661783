#include "exec/device_reduce.h"

namespace reshardctl {

DeviceReduce mapReduce(ReduceType type, DType dtype, int64_t groupSize) {
  switch (type) {
    case ReduceType::Any: return {DeviceReduceOp::Max, true, 0};
    case ReduceType::All: return {DeviceReduceOp::Min, true, 0};
    case ReduceType::Max: return {DeviceReduceOp::Max, false, 0};
    case ReduceType::Min: return {DeviceReduceOp::Min, false, 0};
    case ReduceType::Product: return {DeviceReduceOp::Prod, false, 0};
    case ReduceType::Sum: return {dtype == DType::Bool ? DeviceReduceOp::Max : DeviceReduceOp::Sum, false, 0};
    case ReduceType::Avg: {
      if (dtype == DType::Bool) return {DeviceReduceOp::Max, false, 0};
      const bool powerOfTwo = groupSize > 0 && (groupSize & (groupSize - 1)) == 0;
      if (isFloating(dtype) && powerOfTwo) return {DeviceReduceOp::Avg, false, 0};
      return {DeviceReduceOp::Sum, false, groupSize};
    }
  }
  return {};
}

}  // namespace reshardctl
