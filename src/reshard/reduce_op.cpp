#include "reshard/reduce_op.h"

#include <algorithm>

namespace reshardctl {

namespace {

bool truthy(double value) { return value != 0.0; }

double combine(ReduceType type, double a, double b) {
  switch (type) {
    case ReduceType::Sum:
    case ReduceType::Avg: return a + b;
    case ReduceType::Product: return a * b;
    case ReduceType::Max: return std::max(a, b);
    case ReduceType::Min: return std::min(a, b);
    case ReduceType::Any: return truthy(a) || truthy(b) ? 1.0 : 0.0;
    case ReduceType::All: return truthy(a) && truthy(b) ? 1.0 : 0.0;
  }
  return a;
}

}  // namespace

double reduceIdentity(ReduceType type, DType dtype) {
  switch (type) {
    case ReduceType::Sum:
    case ReduceType::Avg:
    case ReduceType::Any: return 0.0;
    case ReduceType::Product:
    case ReduceType::All: return 1.0;
    case ReduceType::Max: return dtypeLowest(dtype);
    case ReduceType::Min: return dtypeHighest(dtype);
  }
  return 0.0;
}

double reduceValues(ReduceType type, DType dtype, const std::vector<double>& values) {
  if (values.empty()) return reduceIdentity(type, dtype);
  double result = values.front();
  if (type == ReduceType::Any || type == ReduceType::All) result = truthy(result) ? 1.0 : 0.0;
  for (size_t i = 1; i < values.size(); ++i) result = roundToDType(combine(type, result, values[i]), dtype);
  if (type == ReduceType::Avg)
    result = roundToDType(result / static_cast<double>(values.size()), dtype);
  return result;
}

bool reducesCommute(ReduceType a, ReduceType b) { return a == b && a != ReduceType::Avg; }

}  // namespace reshardctl
