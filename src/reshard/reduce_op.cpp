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

std::vector<double> reducePartialWholes(std::map<std::vector<int64_t>, std::vector<double>> wholes,
                                        const std::vector<ReduceType>& reduceTypes, DType dtype) {
  for (ReduceType type : reduceTypes) {
    std::map<std::vector<int64_t>, std::vector<std::vector<double>>> groups;  // by the outer coordinates
    for (auto& [key, data] : wholes) groups[{key.begin() + 1, key.end()}].push_back(std::move(data));
    wholes.clear();
    for (auto& [outer, members] : groups) {
      std::vector<double> reduced(members.front().size());
      std::vector<double> column(members.size());
      for (size_t i = 0; i < reduced.size(); ++i) {
        for (size_t m = 0; m < members.size(); ++m) column[m] = members[m][i];
        reduced[i] = reduceValues(type, dtype, column);
      }
      wholes[outer] = std::move(reduced);
    }
  }
  return wholes.empty() ? std::vector<double>{} : std::move(wholes.begin()->second);
}

bool reducesCommute(ReduceType a, ReduceType b) { return a == b && a != ReduceType::Avg; }

}  // namespace reshardctl
