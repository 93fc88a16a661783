// --lowering=plan (docs/lowering.md): ReshardFunctions::planned, the
// planner's min-cost plan lowered step by step into the op vocabulary of
// Paddle's functions. Each collective step of a plan is a 1-D move on the
// groups along its mesh dims, so it is lowered by the 1-D function of that
// move on the group holding this rank, as NdMeshReshardFunction lowers its
// moves (reshard_functions.cpp); a send_recv step is same_status's p2p ops
// on the plan's pairs, each sending a part of a piece. Every group of a
// step is made before this rank's is used, so ring ids agree on every rank.
#include <algorithm>

#include <fmt/format.h>

#include "lower/local_shape.h"
#include "lower/reshard_functions.h"
#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"
#include "reshard/planner.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace {

const std::vector<int64_t>* groupHolding(const Step& step, int64_t rank) {
  for (const std::vector<int64_t>& group : step.groups)
    if (std::find(group.begin(), group.end(), rank) != group.end()) return &group;
  return nullptr;
}

// A scale step (P(SUM) <-> P(AVG), reshard/plan.h) as paddle.scale builds it
// in PIR: the factor a pd_op.full operand, bias 0 (scale_kernel). The factor is
// a power of two or its inverse, written in full so that it reads back exact.
Value* scaleOp(LoweredOps& ops, const Step& step, const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
               const Target& out) {
  NewOp factor;
  factor.name = "pd_op.full";
  factor.attributes = {{"dtype", "(pd_op.DataType)float32"},
                       {"place", "(pd_op.Place)Place(cpu)"},
                       {"shape", "(pd_op.IntArray)[1]"},
                       {"value", fmt::format("(Float){}", step.scale)}};
  factor.resultTypes = {ops.denseType({1}, "f32")};
  Value* scale = ops.createOne(std::move(factor));
  NewOp op{"pd_op.scale",          {{"bias", "(Float)0"}, {"bias_after_scale", "true"}},
           {value, scale},         {out.type},
           {out.dist},             ops.opDist(dst.mesh, {src}, {dst}),
           ops.stopGradient(value)};
  return ops.createOne(std::move(op));
}

// pd_op.all_gather stacks equal pieces and pd_op.reduce_scatter deals equal
// chunks (Paddle's s_to_r refuses an uneven split): a plan's collective of an
// uneven dim travels padded (flattenedGather, flattenedScatter).
bool unevenGather(const Step& step, const std::vector<int64_t>& group, const std::vector<int64_t>& dims) {
  return step.kind == StepKind::AllGather &&
         dims[static_cast<size_t>(step.tensorDim)] % static_cast<int64_t>(group.size()) != 0;
}

// The same for a reduce_scatter of SUM (another reduction all-reduces, then cuts).
bool unevenScatter(const Step& step, const std::vector<int64_t>& group, const std::vector<int64_t>& dims) {
  return step.kind == StepKind::ReduceScatter && step.reduce.value_or(ReduceType::Sum) == ReduceType::Sum &&
         dims[static_cast<size_t>(step.tensorDim)] % static_cast<int64_t>(group.size()) != 0;
}

std::vector<int64_t> extents(const Box& box) {
  std::vector<int64_t> sizes;
  for (size_t dim = 0; dim < box.rank(); ++dim) sizes.push_back(box.extent(dim));
  return sizes;
}

// The part `source` sends `destination` in a send_recv step: where its piece
// before the step meets the destination's piece after it, as exec's CPU
// executor cuts it (exec/step_program.cpp, Lowering::sendRecv).
Box sentPart(const Step& step, const std::vector<int64_t>& dims, int64_t source, int64_t destination) {
  const Box held = localBox(dims, step.from, meshCoord(step.from.mesh, positionOf(step.from.mesh, source)));
  const Box wanted = localBox(dims, step.to, meshCoord(step.to.mesh, positionOf(step.to.mesh, destination)));
  return intersect(held, wanted);
}

using Parts = std::vector<std::pair<Box, Value*>>;

// The partials Paddle's r_to_p makes (reshard_functions.cpp's rToP).
bool rToPMakes(ReduceType reduce) {
  return reduce == ReduceType::Sum || reduce == ReduceType::Avg || reduce == ReduceType::Max;
}

// Where `box` can be cut across `dim` with no part straddling the cut (a
// guillotine cut of the parts' tiling), in order; empty when nowhere. Work:
// parts^2, the parts being at most the step's source ranks.
std::vector<int64_t> cutsAcross(const Parts& parts, const Box& box, size_t dim) {
  std::vector<int64_t> cuts;
  for (const auto& [part, value] : parts) {
    const int64_t at = part.end[dim];
    const bool straddled = std::any_of(parts.begin(), parts.end(), [&](const auto& other) {
      return other.first.begin[dim] < at && at < other.first.end[dim];
    });
    if (at < box.end[dim] && !straddled) cuts.push_back(at);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

}  // namespace

// A send_recv step (reshard/transition.h's meshChange, rank to rank or by
// intersection, or a permutation): Paddle's same_status
// (same_status_reshard_func.py SameStatusReshardFunction.reshard) extended to
// parts. Every p2p group of the step is made first, [src,dst] then [dst,src]
// as same_status makes them, so ring ids agree on every rank. Then, in the
// step's pair order (destinations in order, the order exec's executor and
// every other rank follow, so no pair waits on a later one): as a source,
// this rank slices the part out of its piece when it is not all of it and
// sends it (send_v2); as a destination it receives each part (recv_v2) and
// concatenates them along the dim they stack on. Parts are typed by their
// local shape (builtin.tensor), the new piece by the step's next layout.
Value* ReshardFunctions::pointToPoint(const Step& step, const TensorDistAttr& current, const TensorDistAttr& next,
                                      Value* value, const Target& out) {
  const std::vector<int64_t>& dims = value->type->dims;
  for (const std::vector<int64_t>& pair : step.groups)
    if (pair[0] != pair[1]) groups_.ringOf({pair[0], pair[1]}), groups_.ringOf({pair[1], pair[0]});
  const int64_t source = positionOf(step.from.mesh, rank_), destination = positionOf(step.to.mesh, rank_);
  if (source < 0 && destination < 0) return fakeReshard(current, next, value, out);
  const Box held = source < 0 ? Box{} : localBox(dims, step.from, meshCoord(step.from.mesh, source));
  const Box wanted = destination < 0 ? Box{} : localBox(dims, step.to, meshCoord(step.to.mesh, destination));
  const std::string dtype(value->type->dtype);
  // A part that is all of this rank's new piece is typed as it, others by their shape.
  const auto partType = [&](const Box& part) { return part == wanted ? out.type : ops_.denseType(extents(part), dtype); };
  std::vector<std::pair<Box, Value*>> parts;  // what this rank holds of its new piece
  for (const std::vector<int64_t>& pair : step.groups) {
    if (pair[0] != rank_ && pair[1] != rank_) continue;
    const Box part = sentPart(step, dims, pair[0], pair[1]);
    if (part.empty()) continue;
    if (pair[0] != rank_) {
      NewOp recv = recvV2(pair[0], pair[1], partType(part), extents(part));
      if (part == wanted) recv.resultDists = {out.dist};
      recv.dist = ops_.opDist(next.mesh, {}, part == wanted ? std::vector{next} : std::vector<TensorDistAttr>{});
      recv.stopGradient = ops_.stopGradient(value);
      parts.emplace_back(part, ops_.createOne(std::move(recv)));
      continue;
    }
    const bool whole = pair[1] == rank_ && part == wanted;
    Value* piece = cutOut(value, held, part, partType(part),
                          ops_.opDist(current.mesh, {current}, whole ? std::vector{next} : std::vector<TensorDistAttr>{}),
                          whole ? &out.dist : nullptr);
    if (pair[1] == rank_) {
      parts.emplace_back(part, piece);
      continue;
    }
    sendV2(piece, pair[0], pair[1], ops_.opDist(current.mesh, {current}, {}));
  }
  if (destination < 0) return fakeReshard(current, next, value, out);
  if (step.reduce) parts = reduceArrivals(*step.reduce, std::move(parts), wanted, next, out);
  return joinParts(std::move(parts), wanted, next, out);
}

// This rank's new piece from the parts it kept or received: one part is it
// (relabelled when it is the old piece unchanged), several are concatenated
// (stackParts).
Value* ReshardFunctions::joinParts(std::vector<std::pair<Box, Value*>> parts, const Box& wanted,
                                   const TensorDistAttr& next, const Target& out) {
  if (parts.empty())
    throw PaddleRefusal(fmt::format("the plan's send_recv leaves rank {} an empty piece, which no recv_v2 or concat "
                                    "makes", rank_));
  if (parts.size() == 1 && parts.front().first == wanted) {
    Value* piece = parts.front().second;
    if (piece->type == out.type) return piece;
    return shareData(piece->dist ? *piece->dist : next, next, piece, out);
  }
  return stackParts(std::move(parts), wanted, out.type, next, true);
}

// The parts tiling `box` joined into one value typed `type` (laid out as
// `next` when `whole`, the rank's new piece; else a builtin.tensor): the box is
// cut across the first dim where no part straddles a cut, each slab joined
// the same way, and the slabs concatenated in order (builtin.combine, then
// pd_op.concat as s_to_r's does), so a 2x2 grid of parts is two rows, each
// joined, then the rows. A tiling no straight cut splits is refused.
Value* ReshardFunctions::stackParts(Parts parts, const Box& box, const Type* type, const TensorDistAttr& next,
                                    bool whole) {
  if (parts.size() == 1 && parts.front().first == box) return parts.front().second;
  size_t dim = 0;
  std::vector<int64_t> cuts;
  while (dim < box.rank() && (cuts = cutsAcross(parts, box, dim)).empty()) ++dim;
  if (parts.empty() || cuts.empty())
    throw PaddleRefusal(fmt::format("the plan's send_recv gives rank {} {} parts of its new piece that no straight "
                                    "cut separates, which pd_op.concat cannot join",
                                    rank_, parts.size()));
  cuts.push_back(box.end[dim]);
  std::vector<Value*> slabs;
  int64_t from = box.begin[dim];
  for (int64_t to : cuts) {
    Box slab = box;
    slab.begin[dim] = from;
    slab.end[dim] = to;
    Parts inside;
    for (const auto& part : parts)
      if (part.first.begin[dim] >= from && part.first.end[dim] <= to) inside.push_back(part);
    slabs.push_back(stackParts(std::move(inside), slab, ops_.denseType(extents(slab), type->dtype), next, false));
    from = to;
  }
  return concat(slabs, static_cast<int64_t>(dim), type, next, whole);
}

// builtin.combine, then pd_op.concat along `axis` (as s_to_r's does), typed
// `type`; laid out as `next` when `whole` (the rank's new piece).
Value* ReshardFunctions::concat(const std::vector<Value*>& values, int64_t axis, const Type* type,
                                const TensorDistAttr& next, bool whole) {
  std::vector<const Type*> types;
  for (const Value* value : values) types.push_back(value->type);
  const bool stop = std::all_of(values.begin(), values.end(), [&](const Value* v) { return ops_.stopGradient(v); });
  NewOp combine{"builtin.combine", {}, values, {vectorType(ops_.program().types(), types)}, {}, std::nullopt, stop};
  Value* list = ops_.createOne(std::move(combine));
  NewOp op{"pd_op.concat", {}, {list, ops_.fullInt32(axis)}, {type}, {}, std::nullopt, stop};
  if (whole) op.resultDists = {next};
  op.dist = ops_.opDist(next.mesh, {}, whole ? std::vector{next} : std::vector<TensorDistAttr>{});
  return ops_.createOne(std::move(op));
}

// Several mesh dims cut at once (reshard/transition.h's permutation with
// nothing to send): each rank slices its own piece. On one mesh that is
// Paddle's N-D lowering of R to those splits, one local slice per mesh dim;
// between meshes of the same processes in another order (permuted process
// ids) each rank's new box is cut out of its old one by one pd_op.slice. Only
// a cut of unreduced pieces is such a lowering.
Value* ReshardFunctions::localCut(const Step& step, const TensorDistAttr& current, const TensorDistAttr& next,
                                  Value* value, const Target& out) {
  if (!current.partials.empty() || current.mesh.shape != next.mesh.shape)
    throw PaddleRefusal(fmt::format("the plan's local cut from {} to {} has no reshard function's form",
                                    layoutText(step.from), layoutText(step.to)));
  if (current.mesh.processIds == next.mesh.processIds) return ndMesh(current, next, value, out);
  const int64_t source = positionOf(step.from.mesh, rank_), destination = positionOf(step.to.mesh, rank_);
  if (source < 0 || destination < 0) return fakeReshard(current, next, value, out);
  const std::vector<int64_t>& dims = value->type->dims;
  const Box held = localBox(dims, step.from, meshCoord(step.from.mesh, source));
  const Box wanted = localBox(dims, step.to, meshCoord(step.to.mesh, destination));
  if (held == wanted) return shareData(current, next, value, out);
  return cutOut(value, held, wanted, out.type, ops_.opDist(next.mesh, {current}, {next}), &out.dist);
}

Value* ReshardFunctions::reduceThenSlice(const Step& step, const std::vector<int64_t>& group,
                                         const TensorDistAttr& current, Value* value, const Target& out) {
  const size_t rank = value->type->dims.size();
  TensorDistAttr reduced = current;
  std::erase_if(reduced.partials, [&](const PartialDim& p) { return p.meshDim == step.meshDim; });
  const Target whole{ops_.distType(value->type->dims, std::string(value->type->dtype), reduced), reduced};
  value = pToR(groupLayout(group, rank, -1, step.reduce), groupLayout(group, rank, -1), value, whole);
  return rToS(groupLayout(group, rank, -1), groupLayout(group, rank, step.tensorDim), value, out);
}

Value* ReshardFunctions::planned(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                 const Target& out) {
  const std::vector<int64_t>& dims = value->type->dims;
  const std::string dtype(value->type->dtype);
  Plan plan;
  try {
    plan = planMinCost(ReshardRequest{dims, parseDType(dtype).value_or(DType::F32), src, dst}, *costs_);
  } catch (const std::exception& e) {  // PlanError, LayoutError
    throw PaddleRefusal(fmt::format("the planner has no plan for it: {}", e.what()));
  }
  TensorDistAttr current = src;
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const Step& step = plan.steps[k];
    const bool last = k + 1 == plan.steps.size();
    const TensorDistAttr next = last ? dst : toDistAttr(step.to, static_cast<int64_t>(dims.size()));
    const Target target = last ? out : Target{ops_.distType(dims, dtype, next), next};
    if (step.kind == StepKind::SendRecv) {
      // The plan's own pairs, not same_status's pairing of the meshes in
      // order: a rank that keeps its piece sends nothing, and one that must
      // both send and receive does both (Paddle's same_status stops at its
      // first pair and hangs, docs/lowering.md).
      value = pointToPoint(step, current, next, value, target);
      current = next;
      continue;
    }
    if (step.kind == StepKind::Slice && step.tensorDim < 0) {
      value = localCut(step, current, next, value, target);
      current = next;
      continue;
    }
    for (const std::vector<int64_t>& group : step.groups) {
      std::vector<int64_t> sorted = group;
      std::sort(sorted.begin(), sorted.end());
      groups_.ringOf(sorted);
    }
    const std::vector<int64_t>* group = groupHolding(step, rank_);
    if (group == nullptr) {  // this rank takes no part: pruned with the ops of other ranks
      value = fakeReshard(current, next, value, target);
      current = next;
      continue;
    }
    const size_t rank = dims.size();
    const std::optional<ReduceType> reduce = step.reduce;
    const bool flattened = step.meshDims.size() > 1;
    if ((flattened || unevenGather(step, *group, dims)) && step.kind == StepKind::AllGather) {
      value = flattenedGather(step, *group, current, next, value, target);
      current = next;
      continue;
    }
    if ((flattened || unevenScatter(step, *group, dims)) && step.kind == StepKind::ReduceScatter) {
      value = flattenedScatter(step, *group, current, next, value, target);
      current = next;
      continue;
    }
    switch (step.kind) {
      case StepKind::AllReduce:
        value = pToR(groupLayout(*group, rank, -1, reduce), groupLayout(*group, rank, -1), value, target);
        break;
      case StepKind::ReduceScatter:
        if (reduce.value_or(ReduceType::Sum) == ReduceType::Sum) {
          value = pToS(groupLayout(*group, rank, -1, reduce), groupLayout(*group, rank, step.tensorDim), value, target);
          break;
        }
        // reduce_scatter sums only: another reduction is an all_reduce, then this rank's slice.
        value = reduceThenSlice(step, *group, current, value, target);
        break;
      case StepKind::AllGather:
        value = sToR(groupLayout(*group, rank, step.tensorDim), groupLayout(*group, rank, -1), value, target);
        break;
      case StepKind::AllToAll:
        value = sToS(groupLayout(*group, rank, step.fromTensorDim), groupLayout(*group, rank, step.tensorDim), value, target);
        break;
      case StepKind::Slice:
        value = rToS(groupLayout(*group, rank, -1), groupLayout(*group, rank, step.tensorDim), value, target);
        break;
      case StepKind::PartialInit:
        if (step.fromTensorDim != -1 || !rToPMakes(reduce.value_or(ReduceType::Sum))) {
          value = partialInit(step, group->front(), current, next, value, target);
          break;
        }
        value = rToP(groupLayout(*group, rank, -1), groupLayout(*group, rank, -1, reduce), value, target, group->front());
        break;
      case StepKind::Scale: {
        const ReduceType was = step.from.placements[static_cast<size_t>(step.meshDim)].reduce;
        value = scaleOp(ops_, step, groupLayout(*group, rank, -1, was), groupLayout(*group, rank, -1, reduce), value,
                        target);
        break;
      }
      case StepKind::SendRecv: break;
    }
    current = next;
  }
  return value;
}

}  // namespace reshardctl
