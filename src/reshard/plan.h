// A reshard plan: the primitives that turn a tensor laid out one way into the
// same tensor laid out another way, each on the groups of ranks along one mesh dim
// (or, for send_recv, between two meshes).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "reshard/placement.h"

namespace reshardctl {

enum class StepKind : uint8_t {
  AllReduce,      // P(r) -> R
  ReduceScatter,  // P(r) -> S(tensorDim)
  AllGather,      // S(tensorDim) -> R
  AllToAll,       // S(fromTensorDim) -> S(tensorDim)
  Slice,          // R -> S(tensorDim), local
  PartialInit,    // R or S(fromTensorDim) -> P(r), local: see Step
  SendRecv,       // one mesh -> another
  Scale,          // P(SUM) <-> P(AVG), local: every piece times Step::scale
};

std::string_view stepKindName(StepKind kind);
// Slice, partial_init and scale: each rank changes its own piece, nothing is sent.
bool isLocalStep(StepKind kind);  // "all_reduce", ..., "send_recv", "scale"

// How the planner found a plan (planner.h): the exact min-cost search where its
// state space is small, else the bounded fallback.
enum class SearchKind : uint8_t {
  Exact,     // Dijkstra over every layout: the cheapest plan under the model
  DimByDim,  // the cheaper of two dim-by-dim plans, then local improvements
};

std::string_view searchKindName(SearchKind kind);  // "exact", "dim_by_dim"

struct Step {
  StepKind kind = StepKind::AllReduce;
  int64_t meshDim = -1;  // -1 for send_recv; the lowest of meshDims
  // A collective over the flattened group of several mesh dims (ascending; an
  // all_reduce of partials of one type): all of them; else empty.
  std::vector<int64_t> meshDims;
  std::optional<ReduceType> reduce;  // all_reduce, reduce_scatter, partial_init; scale: the new type
  // scale: what every piece is multiplied by, the group size n for SUM -> AVG
  // (the mean of n*p is the sum of p), 1/n for AVG -> SUM; n is a power of two,
  // so the factor and the products are exact (transition.h).
  double scale = 1;
  // The tensor dim the step splits or gathers: scattered by reduce_scatter,
  // gathered by all_gather, kept by slice, split by all_to_all.
  int64_t tensorDim = -1;
  // all_to_all: the dim that stops being split. partial_init: -1 from a
  // replicated value (the first rank of each group keeps it, the others get the
  // identity; AVG: every rank keeps it), else the dim each rank's chunk came from
  // (every rank keeps its own chunk and fills the rest with the identity, so each
  // element is still held by exactly one rank of the group).
  int64_t fromTensorDim = -1;
  // Collective steps: process ids per group, ordered by mesh coordinate.
  // send_recv: [source, destination] pairs.
  std::vector<std::vector<int64_t>> groups;
  // The largest per-rank buffer the primitive takes: the NCCL send buffer of a
  // collective (padded to full chunks), the most bytes one process sends or
  // receives in a send_recv, the output piece of a local step.
  int64_t bytesPerRank = 0;
  double estUs = 0;
  Layout from;  // layout before the step
  Layout to;    // layout after it
};

struct Plan {
  Layout src;
  Layout dst;
  std::vector<int64_t> shape;  // global shape; unknown (-1) dims were costed as 1
  DType dtype = DType::F32;
  bool shapeKnown = true;
  std::vector<Step> steps;
  double estUs = 0;
  SearchKind search = SearchKind::Exact;

  bool crossMesh() const { return !(src.mesh == dst.mesh); }
};

}  // namespace reshardctl
