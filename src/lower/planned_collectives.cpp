// --lowering=plan (docs/lowering.md): a plan's collective over the flattened
// group of several mesh dims (reshard/transition.h's flattenedCollective), in
// the ops of Paddle's 1-D functions. pd_op.all_gather stacks the members'
// pieces along dim 0 and pd_op.reduce_scatter gives member k chunk k of dim 0,
// members in the order of the ring's ranks (sorted, as ProcessGroups makes
// them), while a flattened step's pieces are blocks of several tensor dims:
// [S(0),S(1)] -> [R,R] on 2x2 gathers four quarters that form a 2x2 grid, not
// a column. So the gathered stack is cut back into the members' pieces and
// joined where their boxes lie, and a scatter's input is cut into the
// members' blocks and stacked along dim 0 first. Where the blocks already
// stack along dim 0 in ring order (every mesh dim splitting dim 0, in order)
// the collective alone is the move, as s_to_r / p_to_s on dim 0 are.
#include <algorithm>

#include <fmt/format.h>

#include "ir/dtype.h"
#include "lower/local_shape.h"
#include "lower/reshard_functions.h"
#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"
#include "reshard/reduce_op.h"

namespace reshardctl {

namespace {

std::vector<int64_t> boxExtents(const Box& box) {
  std::vector<int64_t> sizes;
  for (size_t dim = 0; dim < box.rank(); ++dim) sizes.push_back(box.extent(dim));
  return sizes;
}

Box boxOf(const std::vector<int64_t>& dims, const Layout& layout, int64_t process) {
  return localBox(dims, layout, meshCoord(layout.mesh, positionOf(layout.mesh, process)));
}

// The boxes the members hold in `layout`, in `members`' order.
std::vector<Box> memberBoxes(const std::vector<int64_t>& dims, const Layout& layout,
                             const std::vector<int64_t>& members) {
  std::vector<Box> boxes;
  boxes.reserve(members.size());
  for (int64_t member : members) boxes.push_back(boxOf(dims, layout, member));
  return boxes;
}

// Whether the boxes, in order, are consecutive slabs of dim 0 that agree on
// every other dim: then stacking them along dim 0 is their union.
bool stackAlongZero(const std::vector<Box>& boxes) {
  for (size_t k = 1; k < boxes.size(); ++k) {
    if (boxes[k].begin[0] != boxes[k - 1].end[0]) return false;
    for (size_t dim = 1; dim < boxes[k].rank(); ++dim)
      if (boxes[k].begin[dim] != boxes[0].begin[dim] || boxes[k].end[dim] != boxes[0].end[dim]) return false;
  }
  return true;
}

std::vector<int64_t> sortedMembers(std::vector<int64_t> group) {
  std::sort(group.begin(), group.end());
  return group;
}

// The elementwise op that reduces two partial parts as reduce_op.h does,
// as its Paddle API builds it (paddle.add, maximum, minimum, multiply; for
// bool tensors logical_or / logical_and); nullopt for ANY/ALL on numbers
// (they would need casts to 0/1 first) and AVG (never reduced on arrival).
std::optional<std::string_view> arrivalOp(ReduceType reduce, DType dtype) {
  switch (reduce) {
    case ReduceType::Sum: return "pd_op.add";
    case ReduceType::Max: return "pd_op.maximum";
    case ReduceType::Min: return "pd_op.minimum";
    case ReduceType::Product: return "pd_op.multiply";
    case ReduceType::Any:
      if (dtype == DType::Bool) return "pd_op.logical_or";
      break;
    case ReduceType::All:
      if (dtype == DType::Bool) return "pd_op.logical_and";
      break;
    case ReduceType::Avg: break;
  }
  return std::nullopt;
}

}  // namespace

// The box `part` cut out of `value`, which holds `held` (both global boxes),
// typed `type`; the value itself when the part is all of it.
Value* ReshardFunctions::cutOut(Value* value, const Box& held, const Box& part, const Type* type, OpDistAttr dist,
                                const TensorDistAttr* resultDist) {
  if (part == held) return value;
  std::vector<int64_t> axes, starts, ends;
  for (size_t dim = 0; dim < part.rank(); ++dim) {
    if (part.begin[dim] == held.begin[dim] && part.end[dim] == held.end[dim]) continue;
    axes.push_back(static_cast<int64_t>(dim));
    starts.push_back(part.begin[dim] - held.begin[dim]);
    ends.push_back(part.end[dim] - held.begin[dim]);
  }
  NewOp slice = sliceOp(value, axes, starts, ends);
  slice.resultTypes = {type};
  if (resultDist != nullptr) slice.resultDists = {*resultDist};
  slice.dist = std::move(dist);
  return ops_.createOne(std::move(slice));
}

// S(a),S(b),.. -> R,R,..: one all_gather over the ring, then (unless the
// pieces stack along dim 0) each member's piece sliced out of the stack and
// the pieces joined where they lie (stackParts). Uneven pieces travel padded,
// as exec's step programs send them (step_program.h): every member's piece
// is zero-filled to the largest extent of each dim (pd_op.full + pd_op.concat)
// so that the counts are equal, and only each block's valid part is taken out
// of the stack (Paddle's s_to_r refuses an uneven split instead).
Value* ReshardFunctions::flattenedGather(const Step& step, const std::vector<int64_t>& group,
                                         const TensorDistAttr& current, const TensorDistAttr& next, Value* value,
                                         const Target& out) {
  const std::vector<int64_t>& dims = value->type->dims;
  const std::string dtype(value->type->dtype);
  const std::vector<int64_t> members = sortedMembers(group);
  const std::vector<Box> boxes = memberBoxes(dims, step.from, members);
  std::vector<int64_t> padded = boxExtents(boxes.front());
  for (const Box& box : boxes)
    for (size_t dim = 0; dim < padded.size(); ++dim) padded[dim] = std::max(padded[dim], box.extent(dim));
  const bool even = std::all_of(boxes.begin(), boxes.end(), [&](const Box& box) { return boxExtents(box) == padded; });
  const int64_t n = static_cast<int64_t>(members.size());
  const int64_t ring = groups_.ringOf(members);
  const bool direct = even && stackAlongZero(boxes);
  std::vector<int64_t> stacked = padded;
  stacked[0] *= n;
  NewOp gather{allGatherName(release_), gatherAttributes(release_, n, ring), {even ? value : padPiece(value, boxExtents(boxOf(dims, step.from, rank_)), padded, current)},
               {direct ? out.type : ops_.denseType(stacked, dtype)}, {},
               ops_.opDist(current.mesh, {current}, {}), ops_.stopGradient(value)};
  if (direct) {
    gather.resultDists = {out.dist};
    gather.dist = ops_.opDist(current.mesh, {current}, {next});
  }
  Value* all = ops_.createOne(std::move(gather));
  if (direct) return all;
  const Box whole = fullBox(stacked);
  std::vector<std::pair<Box, Value*>> parts;
  for (size_t k = 0; k < boxes.size(); ++k) {
    if (boxes[k].empty()) continue;
    Box valid = fullBox(boxExtents(boxes[k]));
    valid.begin[0] += static_cast<int64_t>(k) * padded[0];
    valid.end[0] += static_cast<int64_t>(k) * padded[0];
    const Type* type = ops_.denseType(boxExtents(boxes[k]), dtype);
    parts.emplace_back(boxes[k], cutOut(all, whole, valid, type, ops_.opDist(next.mesh, {}, {})));
  }
  return stackParts(std::move(parts), boxOf(dims, step.to, rank_), out.type, next, true);
}

// `value`, a block of `extents`, zero-filled to `padded` at its end, one dim at a time.
Value* ReshardFunctions::padPiece(Value* value, std::vector<int64_t> extents, const std::vector<int64_t>& padded,
                                  const TensorDistAttr& current) {
  const bool stop = ops_.stopGradient(value);
  for (size_t dim = 0; dim < padded.size(); ++dim) {
    if (extents[dim] == padded[dim]) continue;
    std::vector<int64_t> fill = extents;
    fill[dim] = padded[dim] - extents[dim];
    NewOp zeros{"pd_op.full",
                {{"dtype", dataType(value->type)},
                 {"place", "(pd_op.Place)Place(undefined:0)"},
                 {"shape", fmt::format("(pd_op.IntArray)[{}]", fmt::join(fill, ","))},
                 {"value", "(Float)0"}},
                {},
                {ops_.denseType(fill, value->type->dtype)},
                {},
                std::nullopt,
                stop};
    Value* filler = ops_.createOne(std::move(zeros));
    extents[dim] = padded[dim];
    value = concat({value, filler}, static_cast<int64_t>(dim), ops_.denseType(extents, value->type->dtype), current,
                   false);
  }
  return value;
}

// P(r),P(r),.. -> S(a),S(b),..: SUM is one reduce_scatter over the ring, its
// input the members' blocks stacked along dim 0 in ring order (this rank's
// piece itself where they already are); Paddle's reduce_scatter only sums, so
// another reduction is an all_reduce over the ring and then this rank's block.
Value* ReshardFunctions::flattenedScatter(const Step& step, const std::vector<int64_t>& group,
                                          const TensorDistAttr& current, const TensorDistAttr& next, Value* value,
                                          const Target& out) {
  const std::vector<int64_t>& dims = value->type->dims;
  const std::string dtype(value->type->dtype);
  const std::vector<int64_t> members = sortedMembers(group);
  const std::vector<Box> boxes = memberBoxes(dims, step.to, members);
  const Box held = boxOf(dims, step.from, rank_);
  const size_t rank = dims.size();
  const bool stop = ops_.stopGradient(value);
  if (step.reduce.value_or(ReduceType::Sum) != ReduceType::Sum) {
    TensorDistAttr reduced = current;
    std::erase_if(reduced.partials, [&](const PartialDim& p) {
      return std::find(step.meshDims.begin(), step.meshDims.end(), p.meshDim) != step.meshDims.end();
    });
    const Target whole{ops_.distType(dims, dtype, reduced), reduced};
    value = pToR(groupLayout(members, rank, -1, step.reduce), groupLayout(members, rank, -1), value, whole);
    return cutOut(value, held, boxOf(dims, step.to, rank_), out.type, ops_.opDist(next.mesh, {reduced}, {next}),
                  &out.dist);
  }
  const int64_t n = static_cast<int64_t>(members.size());
  std::vector<int64_t> padded = boxExtents(boxes.front());
  for (const Box& box : boxes)
    for (size_t dim = 0; dim < padded.size(); ++dim) padded[dim] = std::max(padded[dim], box.extent(dim));
  const bool even = std::all_of(boxes.begin(), boxes.end(), [&](const Box& box) { return boxExtents(box) == padded; });
  Value* input = value;
  if (!(even && stackAlongZero(boxes) && boxes.front().begin[0] == held.begin[0] && boxes.back().end[0] == held.end[0])) {
    std::vector<Value*> blocks;
    for (const Box& box : boxes) {
      Value* block = cutOut(value, held, box, ops_.denseType(boxExtents(box), dtype),
                            ops_.opDist(current.mesh, {current}, {}));
      blocks.push_back(even ? block : padPiece(block, boxExtents(box), padded, current));
    }
    std::vector<int64_t> stacked = padded;
    stacked[0] *= n;
    input = concat(blocks, 0, ops_.denseType(stacked, dtype), next, false);
  }
  // Uneven blocks travel padded (as flattenedGather's): this rank's valid part is cut out after.
  NewOp scatter{reduceScatterName(release_), gatherAttributes(release_, n, groups_.ringOf(members)), {input},
                {even ? out.type : ops_.denseType(padded, dtype)}, {}, ops_.opDist(current.mesh, {current}, {}), stop};
  if (even) {
    scatter.resultDists = {out.dist};
    scatter.dist = ops_.opDist(current.mesh, {current}, {next});
  }
  Value* mine = ops_.createOne(std::move(scatter));
  if (even) return mine;
  return cutOut(mine, fullBox(padded), fullBox(boxExtents(boxOf(dims, step.to, rank_))), out.type,
                ops_.opDist(next.mesh, {}, {next}), &out.dist);
}

// A partial made locally (reshard/plan.h's partial_init) where Paddle's
// r_to_p has no form for it: from a shard, S(d) -> P(r), the rank's new piece
// is whole along d, its own chunk where it lies and the reduction's identity
// around it (as exec's executor fills it), so the pieces still reduce to the
// value: pd_op.full of the identity before and after the chunk, joined with
// it by pd_op.concat (stackParts). From a replicated value of a type r_to_p
// asserts on (ANY, ALL, MIN, PROD), the group's first rank keeps the value
// (pd_op.assign) and the others take the identity (pd_op.full), as r_to_p
// does for SUM.
Value* ReshardFunctions::partialInit(const Step& step, int64_t keeper, const TensorDistAttr& current,
                                     const TensorDistAttr& next, Value* value, const Target& out) {
  const std::vector<int64_t>& dims = value->type->dims;
  const ReduceType reduce = step.reduce.value_or(ReduceType::Sum);
  const double identity = reduceIdentity(reduce, parseDType(value->type->dtype).value_or(DType::F32));
  const auto full = [&](const std::vector<int64_t>& shape, const Type* type) {
    return NewOp{"pd_op.full",
                 {{"dtype", dataType(value->type)},
                  {"place", "(pd_op.Place)Place(undefined:0)"},
                  {"shape", fmt::format("(pd_op.IntArray)[{}]", fmt::join(shape, ","))},
                  {"value", fmt::format("(Float){}", identity)}},
                 {},
                 {type},
                 {},
                 ops_.opDist(next.mesh, {}, {}),
                 ops_.stopGradient(value)};
  };
  if (step.fromTensorDim < 0) {
    NewOp op = full(dims, out.type);
    if (rank_ == keeper) op = NewOp{"pd_op.assign", {}, {value}, {out.type}, {}, std::nullopt, ops_.stopGradient(value)};
    op.resultDists = {out.dist};
    op.dist = ops_.opDist(next.mesh, rank_ == keeper ? std::vector{current} : std::vector<TensorDistAttr>{}, {next});
    return ops_.createOne(std::move(op));
  }
  const Box held = boxOf(dims, step.from, rank_);
  const Box wanted = boxOf(dims, step.to, rank_);
  const size_t dim = static_cast<size_t>(step.fromTensorDim);
  std::vector<std::pair<Box, Value*>> parts{{held, value}};
  const auto fill = [&](int64_t begin, int64_t end) {
    if (begin >= end) return;
    Box box = wanted;
    box.begin[dim] = begin;
    box.end[dim] = end;
    parts.emplace_back(box, ops_.createOne(full(boxExtents(box), ops_.denseType(boxExtents(box), value->type->dtype))));
  };
  fill(wanted.begin[dim], held.begin[dim]);
  fill(held.end[dim], wanted.end[dim]);
  return stackParts(std::move(parts), wanted, out.type, next, true);
}

// A send_recv that reduces on arrival (reshard/reduce_on_arrival.h): the
// parts of one box, one from each partial piece, are reduced in the order
// they came (the pair order exec's executor reduces in) by the reduction's
// elementwise op, then the boxes are joined as any send_recv's parts.
std::vector<std::pair<Box, Value*>> ReshardFunctions::reduceArrivals(ReduceType reduce,
                                                                     std::vector<std::pair<Box, Value*>> parts,
                                                                     const Box& wanted, const TensorDistAttr& next,
                                                                     const Target& out) {
  const std::string dtype(out.type->dtype);
  const std::optional<std::string_view> name = arrivalOp(reduce, parseDType(dtype).value_or(DType::F32));
  if (!name)
    throw PaddleRefusal(fmt::format("the plan's send_recv reduces {} parts of {} on arrival, which no elementwise "
                                    "op of Paddle's does", reduceTypeName(reduce), dtype));
  std::vector<std::pair<Box, Value*>> reduced;
  for (auto& [box, part] : parts) {
    auto same = std::find_if(reduced.begin(), reduced.end(), [&](const auto& r) { return r.first == box; });
    if (same == reduced.end()) {
      reduced.emplace_back(box, part);
      continue;
    }
    const bool whole = box == wanted;
    NewOp op{*name, {}, {same->second, part}, {whole ? out.type : ops_.denseType(boxExtents(box), dtype)}, {},
             ops_.opDist(next.mesh, {}, {}), ops_.stopGradient(part)};
    if (whole) {
      op.resultDists = {out.dist};
      op.dist = ops_.opDist(next.mesh, {next, next}, {next});
    }
    same->second = ops_.createOne(std::move(op));
  }
  return reduced;
}

}  // namespace reshardctl
