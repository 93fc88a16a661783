#include "schedule/collective_data.h"

#include <fmt/format.h>

namespace reshardctl {

namespace {

// Every member's operand has the same shape (NCCL counts are equal on every
// rank); that shape.
const Shape& commonShape(const CommCall& call, const std::map<int64_t, const Tensor*>& inputs) {
  const Shape& first = inputs.begin()->second->shape;
  for (const auto& [rank, tensor] : inputs)
    if (tensor->isList || tensor->shape != first)
      throw CollectiveError(fmt::format("{}: rank {} sends {} where rank {} sends {}", call.op, rank,
                                        shapeText(tensor->shape), inputs.begin()->first, shapeText(first)));
  return first;
}

int64_t evenPart(const CommCall& call, int64_t dim, size_t members) {
  if (dim % static_cast<int64_t>(members) != 0)
    throw CollectiveError(fmt::format("{}: dim 0 of size {} does not split over {} ranks", call.op, dim, members));
  return dim / static_cast<int64_t>(members);
}

std::map<int64_t, Tensor> withDType(std::map<int64_t, Tensor> moved, DType dtype) {
  for (auto& [rank, tensor] : moved) tensor.dtype = dtype;
  return moved;
}

std::map<int64_t, Tensor> allToAll(const CommCall& call, const std::vector<int64_t>& members, const Shape& shape,
                                   const std::map<int64_t, const Tensor*>& inputs, ReshardRunner& runner) {
  if (shape.empty()) throw CollectiveError(fmt::format("{}: a 0-D tensor has no dim 0 to exchange", call.op));
  const int64_t n = static_cast<int64_t>(members.size());
  const int64_t chunk = evenPart(call, shape[0], members.size());
  Shape stacked = shape;
  stacked.insert(stacked.begin(), n);
  std::vector<Tensor> rows;
  std::map<int64_t, const Tensor*> pieces;
  rows.reserve(inputs.size());
  for (const auto& [rank, tensor] : inputs) {
    Shape row = shape;
    row.insert(row.begin(), 1);
    rows.push_back(reshaped(*tensor, row));
    pieces[rank] = &rows.back();
  }
  const TensorDistAttr src = groupLayout(members, stacked.size(), 0, std::nullopt);
  const TensorDistAttr dst = groupLayout(members, stacked.size(), 1, std::nullopt);
  std::map<int64_t, Tensor> moved = runner.move(stacked, src, dst, pieces);
  Shape out = shape;
  out[0] = chunk * n;
  for (auto& [rank, tensor] : moved) tensor = reshaped(std::move(tensor), out);
  return moved;
}

}  // namespace

std::map<int64_t, Tensor> runCollective(const CommCall& call, const std::vector<int64_t>& members,
                                        const std::map<int64_t, const Tensor*>& inputs, ReshardRunner& runner) {
  const Shape& shape = commonShape(call, inputs);
  const DType dtype = inputs.begin()->second->dtype;
  const size_t rank = shape.size();
  switch (call.kind) {
    case CommKind::AllReduce:
      return withDType(runner.move(shape, groupLayout(members, rank, -1, call.reduce.value_or(ReduceType::Sum)),
                                   groupLayout(members, rank, -1, std::nullopt), inputs),
                       dtype);
    case CommKind::AllGather: {
      if (shape.empty()) throw CollectiveError(fmt::format("{}: a 0-D tensor cannot be gathered", call.op));
      Shape gathered = shape;
      gathered[0] *= static_cast<int64_t>(members.size());
      return withDType(runner.move(gathered, groupLayout(members, rank, 0, std::nullopt),
                                   groupLayout(members, rank, -1, std::nullopt), inputs),
                       dtype);
    }
    case CommKind::ReduceScatter:
      if (shape.empty()) throw CollectiveError(fmt::format("{}: a 0-D tensor cannot be scattered", call.op));
      evenPart(call, shape[0], members.size());
      return withDType(runner.move(shape, groupLayout(members, rank, -1, ReduceType::Sum),
                                   groupLayout(members, rank, 0, std::nullopt), inputs),
                       dtype);
    case CommKind::AllToAll: return withDType(allToAll(call, members, shape, inputs, runner), dtype);
    case CommKind::Broadcast:
    case CommKind::Reduce: {
      if (call.root < 0 || static_cast<size_t>(call.root) >= members.size())
        throw CollectiveError(fmt::format("{}: root {} is not a rank of the {}-rank group", call.op, call.root,
                                          members.size()));
      const int64_t root = members[static_cast<size_t>(call.root)];
      std::map<int64_t, Tensor> out;
      if (call.kind == CommKind::Broadcast) {
        for (int64_t member : members) out[member] = *inputs.at(root);
        return out;
      }
      for (int64_t member : members) out[member] = *inputs.at(member);
      out[root] = withDType(runner.move(shape, groupLayout(members, rank, -1, call.reduce.value_or(ReduceType::Sum)),
                                        groupLayout(members, rank, -1, std::nullopt), inputs),
                            dtype)
                      .at(root);
      return out;
    }
    case CommKind::Barrier:
    case CommKind::Send:
    case CommKind::Recv: break;
  }
  std::map<int64_t, Tensor> out;
  for (const auto& [member, tensor] : inputs) out[member] = *tensor;
  return out;
}

}  // namespace reshardctl
