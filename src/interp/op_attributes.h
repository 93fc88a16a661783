// An op's attributes read as typed values, for the kernels. The dictionary is
// split once (syntax/attribute_dictionary.h); each value is read from the text Paddle
// prints (IrPrinter::PrintAttribute, paddle/pir/src/core/ir_printer.cc, and the
// dialect printers in paddle/fluid/pir/dialect/operator/ir/op_attribute.cc):
//   scalars  `(Float)1e-05` `(Double)2` `(Int32)-1` `(Int64)5` `(Index)3`, and
//            since Dec 2024 the bare `1e-05`, `-1`
//   bools    `true` / `false`
//   arrays   `[(Int64)2,(Int64)3]`, `[(Int32)1,(Int32)0]`, `[]`
//   IntArray `(pd_op.IntArray)[4,16]` (and bare `[4,16]`)
//   dtypes   `(pd_op.DataType)float32` (and bare `float32`)
//   strings  `"upscale_in_train"`
// A value that is present but not of the asked form is a KernelError: the op
// is then not simulated rather than simulated with a guessed attribute.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "syntax/attribute_dictionary.h"

namespace reshardctl {

class OpAttributes {
 public:
  explicit OpAttributes(std::string_view dictionary);

  bool has(std::string_view key) const { return find(key).has_value(); }
  std::optional<std::string_view> find(std::string_view key) const;

  double number(std::string_view key, double fallback) const;
  int64_t integer(std::string_view key, int64_t fallback) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::vector<int64_t> integers(std::string_view key, std::vector<int64_t> fallback = {}) const;
  std::optional<DType> dtype(std::string_view key) const;  // nullopt also for `undefined`
  std::string_view string(std::string_view key, std::string_view fallback) const;

 private:
  std::vector<AttributeEntry> entries_;
};

// The text after an optional `(Kind)` prefix: `(Float)1` → `1`.
std::string_view withoutKindPrefix(std::string_view value);
// A number as Paddle prints it (C++ ostream: `1e-05`, `inf`, `-inf`, `nan`).
std::optional<double> parseNumber(std::string_view text);

}  // namespace reshardctl
