// Helpers for the kernel tests (not part of the tool): run one kernel by name
// on hand-made tensors, serially or as a rank whose pieces sit at given offsets.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "interp/kernel.h"
#include "interp/kernel_table.h"
#include "syntax/type_text.h"

namespace reshardctl::testing {

inline Tensor tensor(Shape shape, std::vector<double> data, DType dtype = DType::F32) {
  Tensor t;
  t.shape = std::move(shape);
  t.data = std::move(data);
  t.dtype = dtype;
  // (no REQUIRE: the tests build some tensors before any test runs)
  if (t.numel() != numelOf(t.shape)) throw std::logic_error("tensor(): the data does not fill the shape");
  return t;
}

// A site whose result shapes are the result types' dims (or `localShapes`
// when given, as a rank's) and whose operands sit at `offsets`.
class TestSite final : public ExecutionSite {
 public:
  bool isSerial = true;
  std::vector<Shape> typeShapes;
  std::vector<Shape> localShapes;
  std::vector<Shape> offsets;

  bool serial() const override { return isSerial; }
  Shape resultShape(size_t i) const override { return i < localShapes.size() ? localShapes[i] : typeShapes.at(i); }
  Tensor programInput(size_t i, std::string_view) const override { return Tensor::filled(typeShapes.at(i), 1.0, DType::F32); }
  Tensor localPiece(const Tensor& global, size_t) const override { return global; }
  Shape operandOffset(size_t i) const override { return i < offsets.size() ? offsets[i] : Shape(8, 0); }
  int64_t dynamicDim() const override { return 4; }
};

// Runs kernel `name` with `attributes` (`{k:v,...}` as printed) on `inputs`;
// the op's results have the types `resultTypes` (type text).
class KernelRun {
 public:
  KernelRun(std::string name, std::string attributes, std::vector<std::string> resultTypes)
      : name_(std::move(name)), attributes_(std::move(attributes)) {
    OpSpec spec;
    spec.name = program_.strings().intern(name_);
    spec.attributes = program_.strings().intern(attributes_);
    for (const std::string& text : resultTypes) {
      const Type* type = readType(program_.types(), text, 0);
      spec.resultTypes.push_back(type);
      site.typeShapes.push_back(type && type->isTensor() ? type->dims : Shape{});
    }
    op_ = program_.createOp(spec);
  }

  TestSite site;

  std::vector<std::optional<Tensor>> run(const std::vector<Tensor>& inputs) {
    std::vector<const Tensor*> pointers;
    for (const Tensor& t : inputs) pointers.push_back(t.shape.empty() && t.data.empty() && !t.isList ? nullptr : &t);
    const Kernel kernel = findKernel(name_);
    const bool found = kernel != nullptr;
    REQUIRE(found);
    const OpAttributes attrs(attributes_);
    KernelContext context(*op_, attrs, std::move(pointers), site);
    kernel(context);
    return std::move(context.outputs());
  }

  Tensor first(const std::vector<Tensor>& inputs) {
    auto outputs = run(inputs);
    REQUIRE(!outputs.empty());
    REQUIRE(outputs[0].has_value());
    return std::move(*outputs[0]);
  }

 private:
  std::string name_;
  std::string attributes_;
  Program program_;
  Operation* op_ = nullptr;
};

// An absent (null) operand for KernelRun::run.
inline Tensor none() { return Tensor{}; }

inline void checkValues(const Tensor& t, const Shape& shape, const std::vector<double>& values, double eps = 1e-9) {
  CHECK(t.shape == shape);
  REQUIRE(t.data.size() == values.size());
  for (size_t i = 0; i < values.size(); ++i) CHECK(t.data[i] == doctest::Approx(values[i]).epsilon(eps));
}

}  // namespace reshardctl::testing
