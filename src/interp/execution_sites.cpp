#include "interp/execution_sites.h"

#include <algorithm>

#include <fmt/format.h>

#include "interp/layout_pieces.h"
#include "interp/seeded_inputs.h"

namespace reshardctl {

namespace {

Shape typeDims(const Value* value) {
  const Type* type = value->type;
  return type && type->isTensor() ? type->dims : Shape{};
}

DType typeDType(const Value* value) {
  const Type* type = value->type;
  if (!type || !type->isTensor()) return DType::F32;
  return parseDType(type->dtype).value_or(DType::F32);
}

Shape extentsOf(const Box& box) {
  Shape extents(box.rank());
  for (size_t d = 0; d < box.rank(); ++d) extents[d] = box.extent(d);
  return extents;
}

}  // namespace

Shape SerialSite::resultShape(size_t i) const { return typeDims(op_.result(i)); }

Tensor SerialSite::programInput(size_t i, std::string_view name) const {
  if (local_ && local_->programInput)
    if (std::optional<Tensor> given = local_->programInput(op_, i)) return std::move(*given);
  const Value* result = op_.result(i);
  std::string key(name);
  if (key.empty()) key = fmt::format("#input{}", inputCounter_++);  // program order: stable across the pass
  if (i > 0) key += fmt::format("#{}", i);
  const bool logical = result->dist != nullptr &&
                       std::any_of(result->dist->partials.begin(), result->dist->partials.end(), [](const PartialDim& p) {
                         return p.reduce == ReduceType::Any || p.reduce == ReduceType::All;
                       });
  return seededTensor(completeShape(typeDims(result), -1, dynamicDim_), typeDType(result), seed_, key, logical);
}

Shape SerialSite::operandOffset(size_t i) const {
  if (local_ && local_->operandOffset)
    if (std::optional<Shape> offset = local_->operandOffset(op_, i)) return std::move(*offset);
  const Value* operand = op_.operandValue(i);
  return Shape(operand ? values_.at(operand).serial.rank() : 0, 0);
}

const Tensor& RankSite::serialResult(size_t i) const {
  if (i >= serialResults_.size() || !serialResults_[i] || serialResults_[i]->isList)
    throw KernelError(fmt::format("result {} has no serial value to take a shape from", i));
  return *serialResults_[i];
}

std::optional<std::pair<const Layout*, MeshCoord>> RankSite::placementOf(const Value* value) const {
  if (value == nullptr || value->dist == nullptr) return std::nullopt;
  const Layout& layout = layouts_.of(*value->dist);
  std::optional<MeshCoord> coord = layouts_.coordOf(*value->dist, processId_);
  if (!coord) throw KernelError(fmt::format("rank {} is not on the mesh of {}", processId_, value->type->text));
  return std::make_pair(&layout, std::move(*coord));
}

Shape RankSite::resultShape(size_t i) const {
  const Tensor& serial = serialResult(i);
  const auto placed = placementOf(op_.result(i));
  return placed ? extentsOf(pieceBox(serial.shape, *placed->first, placed->second)) : serial.shape;
}

Tensor RankSite::programInput(size_t i, std::string_view) const { return localPiece(serialResult(i), i); }

Tensor RankSite::localPiece(const Tensor& global, size_t i) const {
  const auto placed = placementOf(op_.result(i));
  return placed ? pieceOf(global, *placed->first, placed->second) : global;
}

Shape RankSite::operandOffset(size_t i) const {
  const Value* operand = op_.operandValue(i);
  if (operand == nullptr) return {};
  const Shape& shape = values_.at(operand).serial.shape;
  const auto placed = placementOf(operand);
  return placed ? pieceBox(shape, *placed->first, placed->second).begin : Shape(shape.size(), 0);
}

}  // namespace reshardctl
