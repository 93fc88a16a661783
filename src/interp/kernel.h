// What one op's kernel sees. A kernel is a plain function: it reads its
// operands and attributes and sets its results. The same kernel runs once on
// the serial program's global tensors and once on each rank's local pieces;
// the few things that differ between the two (shapes an attribute gives
// globally, program inputs, where a piece sits) come from the ExecutionSite.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "interp/op_attributes.h"
#include "interp/tensor.h"
#include "ir/ir.h"

namespace reshardctl {

// Where a kernel runs: the serial program, or one rank.
class ExecutionSite {
 public:
  virtual ~ExecutionSite() = default;
  virtual bool serial() const = 0;
  // The shape result `i` must have here: serial, the type's dims (-1 for a
  // dynamic dim, see completeShape); on a rank, its local piece of the serial
  // result under the result's dist type (Paddle's ceil chunks). Ops whose
  // attributes carry global shapes (full, reshape, expand, ...) build their
  // results in this shape: that is how they are localised.
  virtual Shape resultShape(size_t i) const = 0;
  // Result `i` of a program input (pd_op.data, builtin.parameter, ...):
  // serial, seeded values of the whole tensor; on a rank, its piece of them.
  virtual Tensor programInput(size_t i, std::string_view name) const = 0;
  // This rank's piece of `global` under result `i`'s dist type (a partial
  // value: one rank holds it, the others the reduce identity); serial: global.
  virtual Tensor localPiece(const Tensor& global, size_t i) const = 0;
  // Where this rank's piece of operand `i` starts in the global tensor (zeros
  // serially, or for a replicated dim).
  virtual Shape operandOffset(size_t i) const = 0;
  virtual int64_t dynamicDim() const = 0;
};

class KernelContext {
 public:
  KernelContext(const Operation& op, const OpAttributes& attrs, std::vector<const Tensor*> inputs,
                const ExecutionSite& site);

  const Operation& op() const { return op_; }
  const OpAttributes& attrs() const { return attrs_; }
  const ExecutionSite& site() const { return site_; }

  size_t numInputs() const { return inputs_.size(); }
  bool hasInput(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  const Tensor& in(size_t i) const;  // KernelError when absent (a null operand)
  const Tensor* optionalIn(size_t i) const { return hasInput(i) ? inputs_[i] : nullptr; }

  size_t numResults() const { return outputs_.size(); }
  void setOut(size_t i, Tensor t);
  std::vector<std::optional<Tensor>>& outputs() { return outputs_; }

  // The element type of result i (its type's dtype; F32 when it has none).
  DType resultDType(size_t i) const;
  Shape resultShape(size_t i) const { return site_.resultShape(i); }
  // An IntArray argument: operand `operand` when the op has it (Paddle turns
  // IntArray arguments into full_int_array operands), else attribute `key`.
  std::vector<int64_t> intArray(size_t operand, std::string_view key) const;
  // A Scalar argument: operand `operand` (its first element) or attribute `key`.
  double scalar(size_t operand, std::string_view key, double fallback) const;

 private:
  const Operation& op_;
  const OpAttributes& attrs_;
  std::vector<const Tensor*> inputs_;
  std::vector<std::optional<Tensor>> outputs_;
  const ExecutionSite& site_;
};

using Kernel = void (*)(KernelContext&);

// `shape` with its -1 dims filled in: one -1 takes whatever makes `numel`
// elements (when numel >= 0), any other becomes the --dynamic-dim size.
Shape completeShape(Shape shape, int64_t numel, int64_t dynamicDim);

}  // namespace reshardctl
