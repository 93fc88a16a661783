#include <doctest/doctest.h>

#include "exec/device_reduce.h"

using namespace reshardctl;

TEST_CASE("device reduce: Paddle reduce types as NCCL ops") {
  CHECK(mapReduce(ReduceType::Sum, DType::F32, 4).op == DeviceReduceOp::Sum);
  CHECK(mapReduce(ReduceType::Product, DType::I32, 3).op == DeviceReduceOp::Prod);
  CHECK(mapReduce(ReduceType::Max, DType::BF16, 2).op == DeviceReduceOp::Max);
  CHECK(mapReduce(ReduceType::Min, DType::I64, 2).op == DeviceReduceOp::Min);
  // AVG: ncclAvg only where its pre-scaling by 1/n is exact.
  CHECK(mapReduce(ReduceType::Avg, DType::F16, 4).op == DeviceReduceOp::Avg);
  CHECK(mapReduce(ReduceType::Avg, DType::F32, 1).op == DeviceReduceOp::Avg);
  const DeviceReduce three = mapReduce(ReduceType::Avg, DType::F32, 3);
  CHECK(three.op == DeviceReduceOp::Sum);
  CHECK(three.divideBy == 3);
  const DeviceReduce ints = mapReduce(ReduceType::Avg, DType::I32, 2);
  CHECK(ints.op == DeviceReduceOp::Sum);
  CHECK(ints.divideBy == 2);
  // Logical reductions normalise first; bool sums are logical or.
  CHECK(mapReduce(ReduceType::Any, DType::F32, 2).logicalFirst);
  CHECK(mapReduce(ReduceType::Any, DType::F32, 2).op == DeviceReduceOp::Max);
  CHECK(mapReduce(ReduceType::All, DType::Bool, 2).op == DeviceReduceOp::Min);
  CHECK(mapReduce(ReduceType::Sum, DType::Bool, 2).op == DeviceReduceOp::Max);
  CHECK(mapReduce(ReduceType::Avg, DType::Bool, 3).op == DeviceReduceOp::Max);
  CHECK(mapReduce(ReduceType::Avg, DType::Bool, 3).divideBy == 0);
}
