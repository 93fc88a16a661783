#include "lower/reshard_functions.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "ir/dtype.h"
#include "lower/local_shape.h"
#include "reshard/mesh_coords.h"
#include "support/op_names.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace {

// A deliberately wrong lowering, for the test that validate --lowered
// catches one (docs/lowering.md): RESHARDCTL_FAULT_LOWERING=slice-bound gives
// r_to_s the next rank's slice bounds, =reduce-type makes p_to_r's
// all_reduce a MAX where the partial is a SUM. Read only here, never set
// outside tests.
bool loweringFault(std::string_view name) {
  const char* fault = std::getenv("RESHARDCTL_FAULT_LOWERING");
  return fault != nullptr && name == fault;
}

std::vector<int64_t> sortedIds(const ProcessMesh& mesh) {
  std::vector<int64_t> ids = processIds(mesh);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TensorDistAttr layout(const ProcessMesh& mesh, std::vector<int64_t> dimsMapping, std::vector<PartialDim> partials = {}) {
  return TensorDistAttr{mesh, std::move(dimsMapping), std::move(partials), ""};
}

std::vector<int64_t> replicatedMapping(size_t rank) { return std::vector<int64_t>(rank, -1); }

bool partialDimsEqual(const TensorDistAttr& a, const TensorDistAttr& b) {
  if (a.partials.size() != b.partials.size()) return false;
  for (const PartialDim& p : a.partials)
    if (!b.partialOn(p.meshDim)) return false;
  return true;
}

std::string layoutText(const TensorDistAttr& dist) {
  std::string partial;
  for (const PartialDim& p : dist.partials) partial += fmt::format(", partial({},{})", p.meshDim, reduceTypeName(p.reduce));
  return fmt::format("mesh [{}] ids [{}] dims_mapping [{}]{}", fmt::join(dist.mesh.shape, ","),
                     fmt::join(processIds(dist.mesh), ","), fmt::join(dist.dimsMapping, ","), partial);
}

}  // namespace

bool ReshardFunctions::holdsRank(const ProcessMesh& mesh) const { return positionOf(mesh, rank_) >= 0; }

ProcessMesh ReshardFunctions::subMesh(const ProcessMesh& mesh, int64_t meshDim) const {
  const std::vector<int64_t> ids = processIds(mesh);
  const int64_t member = holdsRank(mesh) ? rank_ : ids.front();
  for (std::vector<int64_t>& group : groupsAlong(mesh, meshDim))
    if (std::find(group.begin(), group.end(), member) != group.end()) {
      const int64_t size = static_cast<int64_t>(group.size());
      return ProcessMesh({size}, std::move(group));
    }
  return mesh;
}

void ReshardFunctions::makeGroupsAlong(const ProcessMesh& mesh, int64_t meshDim) {
  for (std::vector<int64_t>& group : groupsAlong(mesh, meshDim)) {
    std::sort(group.begin(), group.end());
    groups_.ringOf(group);
  }
}

// share_data_: the 1-rank case of s_to_r and r_to_s.
Value* ReshardFunctions::shareData(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                   const Target& out) {
  NewOp op{"pd_op.share_data_", {}, {value}, {out.type}, {out.dist}, ops_.opDist(src.mesh, {src}, {dst}),
           ops_.stopGradient(value)};
  return ops_.createOne(std::move(op));
}

// reshard_v2 for a rank with no part in the move: "fake var will be removed
// in remove_other_rank_op_pass" (same_status, r_to_s).
Value* ReshardFunctions::fakeReshard(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                     const Target& out) {
  NewOp op{kReshardOp, {}, {value}, {out.type}, {out.dist},
           ops_.opDist(mergeMeshes(src.mesh, dst.mesh), {src}, {dst}), ops_.stopGradient(value)};
  return ops_.createOne(std::move(op));
}

// p_to_r_reshard_func.py PToRReshardFunction.reshard: one all_reduce on the
// sorted mesh, of the partial's reduce type. Paddle 3.0-beta's calls
// `_pir_ops.c_allreduce_sum_(value, group.id, False, False)` whatever the
// reduce type: it sets `reduce_mean` for AVG and never reads it.
Value* ReshardFunctions::pToR(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                              const Target& out) {
  const int64_t ring = groups_.ringOf(sortedIds(src.mesh));
  ReduceType reduceType = src.partials.front().reduce;
  const bool fault = reduceType == ReduceType::Sum && loweringFault("reduce-type");
  if (fault) reduceType = ReduceType::Max;
  NewOp op{kAllReduceOp, {}, {value}, {out.type}, {out.dist}, ops_.opDist(src.mesh, {src}, {dst}),
           ops_.stopGradient(value)};
  if (release_ == PaddleRelease::V3_0Beta) {
    if (reduceType != ReduceType::Sum && !fault)
      warnings_.push_back({fmt::format("Paddle 3.0-beta's p_to_r lowers this {} partial as c_allreduce_sum_ (its "
                                       "reduce_mean is never applied): every rank gets the sum",
                                       reduceTypeName(reduceType))});
    op.name = fault ? "pd_op.c_allreduce_max_" : kCAllReduceSumOp;
    op.attributes = {{"ring_id", int32Text(ring)}, {"use_calc_stream", "false"}, {"use_model_parallel", "false"}};
  } else {
    op.attributes = {{"reduce_type", int32Text(static_cast<int64_t>(reduceType))}, {"ring_id", int32Text(ring)}};
  }
  return ops_.createOne(std::move(op));
}

// p_to_s_reshard_func.py PToSReshardFunction.reshard: SUM only (it asserts);
// reduce_scatter cuts dim 0, so another dim is transposed to 0 and back.
Value* ReshardFunctions::pToS(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                              const Target& out) {
  const ReduceType reduce = src.partials.front().reduce;
  if (reduce != ReduceType::Sum)
    throw PaddleRefusal(fmt::format("Paddle's p_to_s reshard function asserts \"The p to s reshard func only "
                                    "support sum op, but received {}\"",
                                    reduceTypeName(reduce)));
  const size_t axis = static_cast<size_t>(
      std::find(dst.dimsMapping.begin(), dst.dimsMapping.end(), 0) - dst.dimsMapping.begin());
  const std::vector<int64_t>& dims = value->type->dims;
  const int64_t nranks = static_cast<int64_t>(src.mesh.size());
  const int64_t ring = groups_.ringOf(sortedIds(src.mesh));
  if (axis == 0) {
    NewOp op{reduceScatterName(release_), gatherAttributes(release_, nranks, ring), {value},
             {out.type}, {out.dist}, ops_.opDist(src.mesh, {src}, {dst}), ops_.stopGradient(value)};
    return ops_.createOne(std::move(op));
  }
  std::vector<int64_t> perm(dims.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[0], perm[axis]);
  auto permuted = [&](std::vector<int64_t> v) { std::swap(v[0], v[axis]); return v; };
  const Value* source = value;
  TensorDistAttr transposedSrc = *source->dist;
  transposedSrc.dimsMapping = permuted(transposedSrc.dimsMapping);
  const std::string dtype(value->type->dtype);
  NewOp forward{"pd_op.transpose", {{"perm", int32ArrayText(perm)}}, {value},
                {ops_.distType(permuted(dims), dtype, transposedSrc)}, {transposedSrc},
                ops_.opDist(src.mesh, {*source->dist}, {transposedSrc}), ops_.stopGradient(value)};
  Value* transposed = ops_.createOne(std::move(forward));
  TensorDistAttr scatteredEntry = dst;
  scatteredEntry.dimsMapping[axis] = -1;
  scatteredEntry.dimsMapping[0] = 0;
  TensorDistAttr scattered = out.dist;
  scattered.dimsMapping = permuted(scattered.dimsMapping);
  NewOp scatter{reduceScatterName(release_), gatherAttributes(release_, nranks, ring), {transposed},
                {ops_.distType(permuted(dims), dtype, scattered)}, {scattered},
                ops_.opDist(src.mesh, {src}, {scatteredEntry}), ops_.stopGradient(value)};
  Value* reduced = ops_.createOne(std::move(scatter));
  NewOp back{"pd_op.transpose", {{"perm", int32ArrayText(perm)}}, {reduced}, {out.type}, {out.dist},
             ops_.opDist(src.mesh, {scattered}, {out.dist}), ops_.stopGradient(value)};
  return ops_.createOne(std::move(back));
}

// r_to_s_reshard_func.py RToSReshardFunction.reshard: paddle.slice with
// per-rank bounds, piece_len = ceil(total / pieces), the last rank to the end.
Value* ReshardFunctions::rToS(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                              const Target& out) {
  int64_t axis = -1, meshAxis = -1;
  for (size_t i = 0; i < dst.dimsMapping.size(); ++i)
    if (dst.dimsMapping[i] != -1) axis = static_cast<int64_t>(i), meshAxis = dst.dimsMapping[i];
  const ProcessMesh& mesh = src.mesh;
  if (!holdsRank(mesh)) return fakeReshard(src, dst, value, out);
  const int64_t total = value->type->dims[static_cast<size_t>(axis)];
  const int64_t pieces = mesh.shape[static_cast<size_t>(meshAxis)];
  if (pieces == 1) return shareData(src, dst, value, out);
  const std::vector<int64_t> ids = processIds(mesh);
  const int64_t pieceLength = (total + pieces - 1) / pieces;
  const bool fault = loweringFault("slice-bound");
  const int64_t position = fault ? (positionOf(mesh, rank_) + 1) % pieces : positionOf(mesh, rank_);
  const int64_t start = position * pieceLength;
  const int64_t end = rank_ == ids.back() && !fault ? total : std::min(total, start + pieceLength);
  NewOp op = sliceOp(value, {axis}, {start}, {end});
  op.resultTypes = {out.type};
  op.resultDists = {out.dist};
  op.dist = ops_.opDist(mesh, {src}, {dst});
  return ops_.createOne(std::move(op));
}

// paddle.slice(x, axes, starts, ends) as PIR builds it: the bounds as two
// full_int_array operands, one infer flag per axis; the caller types it.
NewOp ReshardFunctions::sliceOp(Value* value, const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                                const std::vector<int64_t>& ends) {
  Value* startsValue = ops_.fullIntArray(starts);
  Value* endsValue = ops_.fullIntArray(ends);
  NewOp op{"pd_op.slice",
           {{"axes", int64ArrayText(axes)},
            {"decrease_axis", "[]"},
            {"infer_flags", int64ArrayText(std::vector<int64_t>(axes.size(), 1))}},
           {value, startsValue, endsValue},
           {},
           {},
           std::nullopt,
           true};
  op.stopGradient = ops_.stopGradient(value);
  return op;
}

// r_to_p_reshard_func.py RToPReshardFunction.reshard: SUM keeps the value on
// global rank 0 (paddle.assign) and zeros elsewhere (paddle.full); AVG and
// MAX keep it everywhere; other reduce types are refused.
Value* ReshardFunctions::rToP(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                              const Target& out, int64_t keeper) {
  const ReduceType reduce = dst.partials.front().reduce;
  if (reduce != ReduceType::Sum && reduce != ReduceType::Avg && reduce != ReduceType::Max)
    throw PaddleRefusal(fmt::format("Paddle's r_to_p reshard function asserts \"Unsupported reduce type {}\"",
                                    reduceTypeName(reduce)));
  NewOp op{"pd_op.assign", {}, {value}, {out.type}, {out.dist}, ops_.opDist(dst.mesh, {src}, {dst}),
           ops_.stopGradient(value)};
  if (reduce == ReduceType::Sum && rank_ != keeper) {
    op.name = "pd_op.full";
    op.operands.clear();
    op.attributes = {{"dtype", dataType(value->type)},
                     {"place", "(pd_op.Place)Place(undefined:0)"},
                     {"shape", fmt::format("(pd_op.IntArray)[{}]", fmt::join(value->type->dims, ","))},
                     {"value", "(Float)0"}};
  }
  return ops_.createOne(std::move(op));
}

// s_to_r_reshard_func.py SToRReshardFunction.reshard: all_gather stacks the
// pieces along dim 0 (infer_allgather_dist_type); another split axis takes
// split_with_num along 0 and concat along the axis (builtin.split and
// builtin.combine folded away). An uneven split raises NotImplementedError.
Value* ReshardFunctions::sToR(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                              const Target& out) {
  if (src.mesh.size() == 1) return shareData(src, dst, value, out);
  size_t axis = 0;
  while (axis < src.dimsMapping.size() && src.dimsMapping[axis] == -1) ++axis;
  const std::vector<int64_t>& dims = value->type->dims;
  const int64_t nranks = static_cast<int64_t>(src.mesh.size());
  if (dims[axis] % nranks != 0)
    throw PaddleRefusal(fmt::format("Paddle's s_to_r reshard function raises NotImplementedError(\"unbalanced "
                                    "split is not implemented\"): dim {} of size {} does not split evenly over {} ranks",
                                    axis, dims[axis], nranks));
  const int64_t ring = groups_.ringOf(sortedIds(src.mesh));
  const TensorDistAttr& in = *value->dist;
  const int64_t splitMeshDim = in.dimsMapping[axis];
  const int64_t pieces = in.mesh.shape[static_cast<size_t>(splitMeshDim)];
  std::vector<int64_t> gatheredDims = dims;
  gatheredDims[axis] = dims[axis] / pieces;
  gatheredDims[0] *= pieces;
  TensorDistAttr gathered = layout(in.mesh, in.dimsMapping);
  gathered.dimsMapping[axis] = -1;
  const std::string dtype(value->type->dtype);
  const TensorDistAttr entry = layout(dst.mesh, replicatedMapping(dst.dimsMapping.size()), dst.partials);
  const bool stop = ops_.stopGradient(value);
  NewOp gather{allGatherName(release_),
               gatherAttributes(release_, nranks, ring), {value},
               {ops_.distType(gatheredDims, dtype, gathered)}, {gathered}, ops_.opDist(src.mesh, {src}, {entry}), stop};
  Value* all = ops_.createOne(std::move(gather));
  if (axis == 0) return all;
  std::vector<int64_t> pieceDims = gatheredDims;
  pieceDims[0] /= pieces;
  const Type* pieceType = ops_.distType(pieceDims, dtype, gathered);
  std::vector<TensorDistAttr> pieceDists(static_cast<size_t>(nranks), gathered);
  const Type* listType = vectorType(ops_.program().types(), std::vector<const Type*>(pieceDists.size(), pieceType));
  Value* splitAxis = ops_.fullInt32(0);
  OpDistAttr splitDist = ops_.opDist(gathered.mesh, {gathered}, {});
  splitDist.results.push_back({DistEntry::Kind::List, {}, pieceDists, 0});
  NewOp split{"pd_op.split_with_num", {{"num", int32Text(nranks)}}, {all, splitAxis}, {listType}, {}, splitDist, stop};
  Value* list = ops_.createOne(std::move(split));
  Value* concatAxis = ops_.fullInt32(static_cast<int64_t>(axis));
  OpDistAttr concatDist = ops_.opDist(gathered.mesh, {}, {out.dist});
  concatDist.operands.push_back({DistEntry::Kind::List, {}, pieceDists, 0});
  NewOp concat{"pd_op.concat", {}, {list, concatAxis}, {out.type}, {out.dist}, concatDist, stop};
  return ops_.createOne(std::move(concat));
}

// paddle._C_ops.reshape(x, shape): the shape as a full_int_array (global
// dims here; dist_to_dense makes them local), and the result laid out as `dist`.
Value* ReshardFunctions::reshape(Value* value, const std::vector<int64_t>& shape, const TensorDistAttr& dist) {
  return reshape(value, shape, Target{ops_.distType(shape, std::string(value->type->dtype), dist), dist});
}

// The same, its result declared as `out` (Paddle's set_type after the op).
Value* ReshardFunctions::reshape(Value* value, const std::vector<int64_t>& shape, const Target& out) {
  Value* shapeValue = ops_.fullIntArray(shape);
  const TensorDistAttr& dist = out.dist;
  NewOp op{"pd_op.reshape", {}, {value, shapeValue}, {out.type}, {out.dist},
           ops_.opDist(dist.mesh, {*value->dist}, {dist}), ops_.stopGradient(value)};
  return ops_.createOne(std::move(op));
}

Value* ReshardFunctions::transpose(Value* value, const std::vector<int64_t>& perm, const TensorDistAttr& dist) {
  std::vector<int64_t> dims;
  for (int64_t axis : perm) dims.push_back(value->type->dims[static_cast<size_t>(axis)]);
  NewOp op{"pd_op.transpose", {{"perm", int32ArrayText(perm)}}, {value},
           {ops_.distType(dims, std::string(value->type->dtype), dist)}, {dist},
           ops_.opDist(dist.mesh, {*value->dist}, {dist}), ops_.stopGradient(value)};
  return ops_.createOne(std::move(op));
}

// s_to_s_reshard_func.py SToSReshardFunction.reshard: all_to_all exchanges
// chunks of dim 0, so a destination axis other than 0 is first split out
// and moved to the front (reshape, transpose, reshape), and a source axis
// other than 0 is put back after (reshape, transpose, reshape). Shapes are
// Paddle's, in the global frame. With both axes other than 0 Paddle's
// intermediate types do not describe the local pieces, so that case is refused.
Value* ReshardFunctions::sToS(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                              const Target& out) {
  const auto axisOf = [](const TensorDistAttr& d) {
    return static_cast<size_t>(std::find(d.dimsMapping.begin(), d.dimsMapping.end(), 0) - d.dimsMapping.begin());
  };
  const size_t in = axisOf(src), to = axisOf(dst);
  if (in != 0 && to != 0)
    throw PaddleRefusal(fmt::format("reshardctl does not lower s_to_s between dims {} and {} yet (neither is dim 0)",
                                    in, to));
  const int64_t n = static_cast<int64_t>(src.mesh.size());
  const std::vector<int64_t> dims = value->type->dims;
  const std::string dtype(value->type->dtype);
  auto mappingWith = [](size_t rank, size_t axis) {
    std::vector<int64_t> mapping(rank, -1);
    mapping[axis] = 0;
    return mapping;
  };
  Value* exchanged = nullptr;
  if (to != 0) {
    std::vector<int64_t> pre = dims;
    pre[to] /= n;
    pre.insert(pre.begin() + static_cast<std::ptrdiff_t>(to), n);
    Value* split = reshape(value, pre, layout(src.mesh, mappingWith(pre.size(), in)));
    std::vector<int64_t> axes = {static_cast<int64_t>(to)};
    for (size_t i = 0; i < pre.size(); ++i)
      if (i != to) axes.push_back(static_cast<int64_t>(i));
    Value* moved = transpose(split, axes, layout(src.mesh, mappingWith(pre.size(), in + 1)));
    pre.erase(pre.begin() + static_cast<std::ptrdiff_t>(to));
    pre[in] *= n;
    // in_all2all.set_type(cvt_to_dist_type(src_value.type(), dst_dist_attr))
    exchanged = reshape(moved, pre, Target{ops_.distType(dims, dtype, dst), dst});
  } else {
    exchanged = shareData(src, src, value, Target{value->type, *value->dist});
  }
  const int64_t ring = groups_.ringOf(sortedIds(src.mesh));
  const bool last = in == 0;
  NewOp all{kAllToAllOp, {{"execution_stream", "\"DefaultStream\""}, {"ring_id", int32Text(ring)}}, {exchanged},
            {last ? out.type : ops_.distType(dims, dtype, src)}, {last ? out.dist : src},
            ops_.opDist(src.mesh, {src}, {dst}), ops_.stopGradient(value)};
  Value* result = ops_.createOne(std::move(all));
  if (last) return result;
  std::vector<int64_t> post = dims;
  post[0] /= n;
  post.insert(post.begin(), n);
  Value* split = reshape(result, post, layout(src.mesh, mappingWith(post.size(), in + 1)));
  std::vector<int64_t> axes;
  for (size_t i = 1; i < post.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  axes.insert(axes.begin() + static_cast<std::ptrdiff_t>(in), 0);
  Value* moved = transpose(split, axes, layout(src.mesh, mappingWith(post.size(), in + 1)));
  post.erase(post.begin());
  post[in] *= n;
  return reshape(moved, post, out);
}

// same_status_reshard_func.py SameStatusReshardFunction.reshard: the meshes'
// ids paired in order; every p2p group [src,dst] and [dst,src] is made
// first, then the loop stops at the first pair naming this rank: it sends
// (send_v2, then the fake reshard) or receives (recv_v2), never both.
Value* ReshardFunctions::sameStatus(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                    const Target& out) {
  const std::vector<int64_t> from = processIds(src.mesh), to = processIds(dst.mesh);
  for (size_t i = 0; i < from.size() && i < to.size(); ++i)
    if (from[i] != to[i]) groups_.ringOf({from[i], to[i]}), groups_.ringOf({to[i], from[i]});
  bool sends = false, receives = false;
  for (size_t i = 0; i < from.size() && i < to.size(); ++i) {
    sends = sends || (from[i] == rank_ && to[i] != rank_);
    receives = receives || (to[i] == rank_ && from[i] != rank_);
  }
  for (size_t i = 0; i < from.size() && i < to.size(); ++i) {
    if (from[i] == rank_) {
      if (to[i] == rank_)
        warnings_.push_back({fmt::format("rank {} holds the same piece on both meshes, but Paddle's same_status "
                                         "makes it send that piece to itself (send_v2 with peer 0 on ring [{},{}])",
                                         rank_, rank_, rank_)});
      else if (receives)
        warnings_.push_back({fmt::format("rank {} must both send and receive here, but Paddle's same_status stops at "
                                         "the first pair naming it: it only sends to {}, and the rank that should "
                                         "send to it waits in recv_v2",
                                         rank_, to[i])});
      sendV2(value, from[i], to[i], ops_.opDist(src.mesh, {src}, {}));
      return fakeReshard(src, dst, value, out);
    }
    if (to[i] == rank_) {
      if (sends)
        warnings_.push_back({fmt::format("rank {} must both send and receive here, but Paddle's same_status stops at "
                                         "the first pair naming it: it only receives from {}, and never sends its own piece",
                                         rank_, from[i])});
      const std::vector<int64_t>& dims = out.type->dims;
      if (std::find(dims.begin(), dims.end(), -1) != dims.end())
        throw PaddleRefusal("Paddle's same_status reshard function asserts \"dynamic shape is not supported by "
                            "pir-auto parallel yet.\"");
      NewOp recv = recvV2(from[i], to[i], out.type, localShape(dims, out.dist, rank_));
      recv.resultDists = {out.dist};
      recv.dist = ops_.opDist(dst.mesh, {}, {dst});
      recv.stopGradient = ops_.stopGradient(value);
      return ops_.createOne(std::move(recv));
    }
  }
  return fakeReshard(src, dst, value, out);
}

// same_status's send_v2 on the p2p group [source, destination]: `peer` is
// the receiver's index in that group (0 when Paddle pairs a rank with itself).
void ReshardFunctions::sendV2(Value* value, int64_t source, int64_t destination, OpDistAttr dist) {
  const int64_t ring = groups_.ringOf({source, destination});
  NewOp send{kSendOp,
             {{"dynamic_shape", "false"},
              {"peer", int32Text(destination == rank_ ? 0 : 1)},
              {"ring_id", int32Text(ring)},
              {"use_calc_stream", "true"}},
             {value}, {}, {}, std::move(dist), true};
  ops_.create(std::move(send));
}

// same_status's recv_v2 on the p2p group [source, destination] (the sender
// is peer 0) of a `localDims` piece typed `type`; the caller sets its dists.
NewOp ReshardFunctions::recvV2(int64_t source, int64_t destination, const Type* type,
                               const std::vector<int64_t>& localDims) {
  const int64_t ring = groups_.ringOf({source, destination});
  return NewOp{kRecvOp,
               {{"dtype", dataType(type)},
                {"dynamic_shape", "false"},
                {"out_shape", int32ArrayText(localDims)},
                {"peer", int32Text(0)},
                {"ring_id", int32Text(ring)},
                {"use_calc_stream", "true"}},
               {},
               {type},
               {},
               std::nullopt,
               true};
}

// The *CrossMesh functions (p_to_r, r_to_s, s_to_r, nd_mesh): same_status to
// the destination mesh keeping the layout, then the same-mesh function. The
// p_to_r and r_to_s ones run the second step only on the destination's ranks.
Value* ReshardFunctions::crossMesh(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                   const Target& out, bool onlyOnDestination) {
  TensorDistAttr moved = layout(dst.mesh, src.dimsMapping, src.partials);
  const Target step{ops_.distType(value->type->dims, std::string(value->type->dtype), moved), moved};
  Value* arrived = sameStatus(src, moved, value, step);
  if (onlyOnDestination && !holdsRank(dst.mesh)) return arrived;
  return reshard(moved, dst, arrived, out);
}

// nd_mesh_reshard_func.py NdMeshReshardFunction.reshard: from the last
// differing tensor dim down, shards become replicated (s_to_r on the 1-D
// sub-mesh holding the rank), partials become replicated or shards (p_to_r /
// p_to_s), then partials (r_to_p) and shards (r_to_s) of the destination are
// made. Every group along a mesh dim is made before the rank's own is chosen.
Value* ReshardFunctions::ndMesh(TensorDistAttr src, const TensorDistAttr& dst, Value* value, const Target& out) {
  const size_t rank = src.dimsMapping.size();
  int64_t firstDiff = -1;
  for (size_t i = rank; i-- > 0;)
    if (src.dimsMapping[i] != dst.dimsMapping[i]) { firstDiff = static_cast<int64_t>(i); break; }
  const ProcessMesh& mesh = dst.mesh;
  const std::vector<int64_t>& dims = value->type->dims;
  const std::string dtype(value->type->dtype);
  auto target = [&](const TensorDistAttr& dist) { return Target{ops_.distType(dims, dtype, dist), dist}; };
  for (int64_t i = firstDiff; i >= 0; --i) {
    const int64_t in = src.dimsMapping[static_cast<size_t>(i)];
    if (in == -1 || in == dst.dimsMapping[static_cast<size_t>(i)]) continue;
    TensorDistAttr next = src;
    next.dimsMapping[static_cast<size_t>(i)] = -1;
    makeGroupsAlong(mesh, in);
    const ProcessMesh sub = subMesh(mesh, in);
    std::vector<int64_t> sharded = replicatedMapping(rank);
    sharded[static_cast<size_t>(i)] = 0;
    value = sToR(layout(sub, sharded), layout(sub, replicatedMapping(rank)), value, target(next));
    src = next;
  }
  for (const PartialDim partial : std::vector<PartialDim>(src.partials)) {
    if (std::optional<ReduceType> kept = dst.partialOn(partial.meshDim)) {
      if (*kept != partial.reduce)
        throw PaddleRefusal(fmt::format("Paddle's nd_mesh reshard function raises NotImplementedError: a partial "
                                        "{} cannot become a partial {}",
                                        reduceTypeName(partial.reduce), reduceTypeName(*kept)));
      continue;
    }
    auto shardOn = std::find(dst.dimsMapping.begin(), dst.dimsMapping.end(), partial.meshDim);
    TensorDistAttr next = src;
    next.partials.erase(std::remove(next.partials.begin(), next.partials.end(), partial), next.partials.end());
    std::vector<int64_t> outMapping = replicatedMapping(rank);
    if (shardOn != dst.dimsMapping.end()) {
      const size_t index = static_cast<size_t>(shardOn - dst.dimsMapping.begin());
      next.dimsMapping[index] = partial.meshDim;
      outMapping[index] = 0;
    }
    makeGroupsAlong(mesh, partial.meshDim);
    const ProcessMesh sub = subMesh(mesh, partial.meshDim);
    const TensorDistAttr in1 = layout(sub, replicatedMapping(rank), {{0, partial.reduce}});
    const TensorDistAttr out1 = layout(sub, outMapping);
    value = shardOn != dst.dimsMapping.end() ? pToS(in1, out1, value, target(next)) : pToR(in1, out1, value, target(next));
    src = next;
  }
  for (const PartialDim& partial : dst.partials) {
    if (src.partialOn(partial.meshDim)) continue;
    TensorDistAttr next = src;
    next.partials.push_back(partial);
    const ProcessMesh sub = subMesh(mesh, partial.meshDim);
    value = rToP(layout(sub, replicatedMapping(rank)), layout(sub, replicatedMapping(rank), {{0, partial.reduce}}),
                 value, target(next));
    src = next;
  }
  for (int64_t i = firstDiff; i >= 0; --i) {
    const int64_t wanted = dst.dimsMapping[static_cast<size_t>(i)];
    if (src.dimsMapping[static_cast<size_t>(i)] == wanted) continue;
    TensorDistAttr next = src;
    next.dimsMapping[static_cast<size_t>(i)] = wanted;
    const ProcessMesh sub = subMesh(mesh, wanted);
    std::vector<int64_t> sharded = replicatedMapping(rank);
    sharded[static_cast<size_t>(i)] = 0;
    const bool last = next == dst;
    value = rToS(layout(sub, replicatedMapping(rank)), layout(sub, sharded), value, last ? out : target(next));
    src = next;
  }
  return value;
}

namespace {

// get_sub_meshes: the meshes of `mesh`'s first dim's slices.
std::vector<ProcessMesh> subMeshes(const ProcessMesh& mesh) {
  std::vector<ProcessMesh> meshes;
  if (mesh.ndim() < 1 || mesh.shape[0] <= 0) return meshes;
  const std::vector<int64_t> ids = processIds(mesh);
  const std::vector<int64_t> shape(mesh.shape.begin() + 1, mesh.shape.end());
  const size_t per = ids.size() / static_cast<size_t>(mesh.shape[0]);
  for (size_t i = 0; i < static_cast<size_t>(mesh.shape[0]); ++i)
    meshes.emplace_back(shape, std::vector<int64_t>(ids.begin() + static_cast<std::ptrdiff_t>(i * per),
                                                    ids.begin() + static_cast<std::ptrdiff_t>((i + 1) * per)));
  return meshes;
}

bool strictSubset(const ProcessMesh& small, const ProcessMesh& large) {
  std::vector<int64_t> a = sortedIds(small), b = sortedIds(large);
  return a.size() < b.size() && std::includes(b.begin(), b.end(), a.begin(), a.end());
}

bool isSubMeshOf(const ProcessMesh& sub, const ProcessMesh& mesh) {
  if (sub.ndim() == mesh.ndim()) return strictSubset(sub, mesh);
  if (mesh.ndim() != sub.ndim() + 1) return false;
  for (const ProcessMesh& slice : subMeshes(mesh))
    if (slice == sub) return true;
  return false;
}

// SubToGlobalMeshFunction.is_suitable: nothing split or partial over mesh dim 0 on
// either side, and (as written) the destination one of the source's sub-meshes
// when it has one dim more, which never holds, or a strict superset.
bool subToGlobalFits(const TensorDistAttr& src, const TensorDistAttr& dst) {
  for (const TensorDistAttr* side : {&src, &dst}) {
    if (std::find(side->dimsMapping.begin(), side->dimsMapping.end(), 0) != side->dimsMapping.end()) return false;
    if (side->partialOn(0)) return false;
  }
  if (dst.mesh.ndim() > src.mesh.ndim() + 1) return false;
  if (dst.mesh.ndim() == src.mesh.ndim()) return strictSubset(src.mesh, dst.mesh);
  for (const ProcessMesh& slice : subMeshes(src.mesh))
    if (slice == dst.mesh) return true;
  return false;
}

}  // namespace

// global_to_sub_mesh_func.py GlobaleToSubMeshFunction.reshard: made
// replicated on the global mesh first (nd_mesh), then the value is relabelled
// when the reshard is its only use, else share_data_. No communication.
Value* ReshardFunctions::globalToSub(TensorDistAttr src, const TensorDistAttr& dst, Value* value, const Target& out) {
  if (!src.isReplicated()) {
    const TensorDistAttr replicated = layout(src.mesh, replicatedMapping(src.dimsMapping.size()));
    value = ndMesh(src, replicated,
                   value, Target{ops_.distType(value->type->dims, std::string(value->type->dtype), replicated), replicated});
    src = replicated;
  }
  if (value->useCount() == 1 && ops_.relabel(value, out)) return value;
  return shareData(src, dst, value, out);
}

// sub_to_global_mesh_func.py SubToGlobalMeshFunction.reshard: the source's
// ranks share their value, the others make a zero buffer, and c_broadcast
// from the source's first rank fills it on the global mesh.
Value* ReshardFunctions::subToGlobal(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                     const Target& out) {
  const std::vector<int64_t> sources = processIds(src.mesh);
  std::vector<int64_t> others;
  for (int64_t id : processIds(dst.mesh))
    if (std::find(sources.begin(), sources.end(), id) == sources.end()) others.push_back(id);
  Value* buffer = nullptr;
  if (holdsRank(src.mesh)) {
    buffer = shareData(src, src, value, Target{value->type, *value->dist});
  } else {
    TensorDistAttr onOthers = dst;
    onOthers.mesh = ProcessMesh({static_cast<int64_t>(others.size())}, others);
    NewOp zeros{"pd_op.full",
                {{"dtype", dataType(out.type)},
                 {"place", "(pd_op.Place)Place(undefined:0)"},
                 {"shape", fmt::format("(pd_op.IntArray)[{}]", fmt::join(out.type->dims, ","))},
                 {"value", "(Float)0"}},
                {}, {ops_.distType(out.type->dims, std::string(out.type->dtype), onOthers)}, {onOthers},
                ops_.opDist(onOthers.mesh, {}, {onOthers}), true};
    buffer = ops_.createOne(std::move(zeros));
  }
  const int64_t ring = groups_.ringOf(sortedIds(dst.mesh));
  NewOp broadcast{kCBroadcastOp,
                  {{"ring_id", int32Text(ring)}, {"root", int32Text(sources.front())}, {"use_calc_stream", "true"}},
                  {buffer}, {out.type}, {out.dist}, ops_.opDist(dst.mesh, {src}, {dst}), ops_.stopGradient(value)};
  return ops_.createOne(std::move(broadcast));
}

// choose_reshard_func: the first registered function whose is_suitable holds.
Value* ReshardFunctions::reshard(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                 const Target& out) {
  if (costs_) return planned(src, dst, value, out);
  const bool sameMesh = src.mesh == dst.mesh;
  const bool sameShape = src.mesh.shape == dst.mesh.shape;
  const bool oneD = src.mesh.ndim() == 1 && dst.mesh.ndim() == 1;
  const bool srcReplicated = src.isReplicated(), dstReplicated = dst.isReplicated();
  if (oneD && src.isPartial() && dstReplicated) {
    if (sameMesh) return pToR(src, dst, value, out);
    if (sameShape) return crossMesh(src, dst, value, out, true);
  }
  if (oneD && sameMesh && src.isPartial() && dst.isShard()) return pToS(src, dst, value, out);
  if (oneD && srcReplicated && dst.isShard()) {
    if (sameMesh) return rToS(src, dst, value, out);
    if (sameShape) return crossMesh(src, dst, value, out, true);
  }
  if (oneD && sameMesh && srcReplicated && dst.isPartial() && !dst.isShard()) return rToP(src, dst, value, out);
  if (src.dimsMapping == dst.dimsMapping && partialDimsEqual(src, dst) && !sameMesh && sameShape)
    return sameStatus(src, dst, value, out);
  if (oneD && src.isShard() && dstReplicated) {
    if (sameMesh) return sToR(src, dst, value, out);
    if (sameShape) return crossMesh(src, dst, value, out, false);
  }
  if (dst.mesh.ndim() > 1 && !(src == dst)) {
    if (sameMesh) return ndMesh(src, dst, value, out);
    if (sameShape) return crossMesh(src, dst, value, out, false);
  }
  if (dstReplicated && src.mesh.ndim() <= dst.mesh.ndim() + 1 && isSubMeshOf(dst.mesh, src.mesh))
    return globalToSub(src, dst, value, out);
  if (subToGlobalFits(src, dst)) return subToGlobal(src, dst, value, out);
  if (oneD && sameMesh && src.isShard() && dst.isShard()) return sToS(src, dst, value, out);
  if (src == dst) return value;  // fold_reshard_pass drops a reshard to its own layout
  throw PaddleRefusal(fmt::format("Paddle has no reshard function for {} to {} (choose_reshard_func finds none)",
                                  layoutText(src), layoutText(dst)));
}

}  // namespace reshardctl
