#include "interp/kernel.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace reshardctl {

KernelContext::KernelContext(const Operation& op, const OpAttributes& attrs, std::vector<const Tensor*> inputs,
                             const ExecutionSite& site)
    : op_(op), attrs_(attrs), inputs_(std::move(inputs)), outputs_(op.numResults()), site_(site) {}

const Tensor& KernelContext::in(size_t i) const {
  if (!hasInput(i)) throw KernelError(fmt::format("{} needs operand {}", op_.name(), i));
  return *inputs_[i];
}

void KernelContext::setOut(size_t i, Tensor t) {
  if (i >= outputs_.size()) throw KernelError(fmt::format("{} has no result {}", op_.name(), i));
  if (!t.isList) t.dtype = resultDType(i);
  outputs_[i] = std::move(t);
}

DType KernelContext::resultDType(size_t i) const {
  const Type* type = op_.result(i)->type;
  if (type == nullptr || !type->isTensor()) return DType::F32;
  return parseDType(type->dtype).value_or(DType::F32);
}

std::vector<int64_t> KernelContext::intArray(size_t operand, std::string_view key) const {
  if (!hasInput(operand)) return attrs_.integers(key);
  std::vector<int64_t> values;
  for (double v : in(operand).data) values.push_back(toInteger(v, fmt::format("operand {} holds", operand)));
  return values;
}

double KernelContext::scalar(size_t operand, std::string_view key, double fallback) const {
  if (!hasInput(operand)) return attrs_.number(key, fallback);
  const Tensor& t = in(operand);
  if (t.data.empty()) throw KernelError(fmt::format("operand {} holds no element", operand));
  return t.data.front();
}

Shape completeShape(Shape shape, int64_t numel, int64_t dynamicDim) {
  const auto unknown = std::count(shape.begin(), shape.end(), int64_t{-1});
  int64_t known = 1;
  for (int64_t d : shape)
    if (d >= 0) known *= d;
  for (int64_t& d : shape) {
    if (d >= 0) continue;
    d = unknown == 1 && numel >= 0 && known > 0 ? numel / known : dynamicDim;
  }
  return shape;
}

}  // namespace reshardctl
