#include "reshard/reshard_problem.h"

#include <algorithm>
#include <set>
#include <string>

#include <fmt/format.h>

#include "reshard/reduce_op.h"

namespace reshardctl::planning {

namespace {


void checkMesh(const ProcessMesh& mesh, const char* side) {
  for (int64_t extent : mesh.shape)
    if (extent <= 0) throw PlanError(fmt::format("{} mesh has a dim of size {}", side, extent));
  if (!mesh.idsKnown) return;
  if (static_cast<int64_t>(mesh.processIds.size()) != mesh.size())
    throw PlanError(fmt::format("{} mesh lists {} process ids for {} positions", side,
                                mesh.processIds.size(), mesh.size()));
  std::set<int64_t> unique(mesh.processIds.begin(), mesh.processIds.end());
  if (unique.size() != mesh.processIds.size())
    throw PlanError(fmt::format("{} mesh repeats a process id", side));
}

Layout checkedLayout(const TensorDistAttr& attr, size_t tensorRank, const char* side) {
  checkMesh(attr.mesh, side);
  if (attr.dimsMapping.size() != tensorRank)
    throw PlanError(fmt::format("{} dims_mapping has {} entries for a {}-D tensor", side,
                                attr.dimsMapping.size(), tensorRank));
  try {
    return toLayout(attr);
  } catch (const LayoutError& error) {
    throw PlanError(fmt::format("{} layout: {}", side, error.what()));
  }
}

void addReduces(const Layout& layout, std::vector<ReduceType>& reduces) {
  for (const Placement& placement : layout.placements)
    if (placement.isPartial() && std::find(reduces.begin(), reduces.end(), placement.reduce) == reduces.end())
      reduces.push_back(placement.reduce);
}

// Why a destination cannot be made, or "" -- for a partial on mesh dim `low`
// below (reduced before) one of another type on `high`:
// - ANY/ALL pieces must be 0/1, but they would have to be parts of the other
//   type's pieces, which need not be (a SUM of ANYs over k ranks holds 0..k,
//   and no primitive splits 2 into 0/1 parts). Bool tensors are the exception:
//   every value and piece is 0/1 and every reduce type keeps it so.
// - AVG pieces all hold the value, so their reduction sums the MAX/MIN pieces,
//   and those hold the type's extremes where a MAX/MIN was made: integers
//   overflow (see reductionOrderAllows in transition.cpp).
std::string unreachableBecause(const Placement& low, const Placement& high, DType dtype) {
  const bool logical = low.reduce == ReduceType::Any || low.reduce == ReduceType::All;
  if (logical && high.reduce != low.reduce && dtype != DType::Bool)
    return fmt::format("the {0} pieces would have to be 0/1 parts of the {1} pieces, which {2} values need not be "
                       "(only bool pieces always are)",
                       reduceTypeName(low.reduce), reduceTypeName(high.reduce), dtypeName(dtype));
  const bool extreme = high.reduce == ReduceType::Max || high.reduce == ReduceType::Min;
  if (low.reduce == ReduceType::Avg && extreme && !isFloating(dtype) && !isComplex(dtype) && dtype != DType::Bool)
    return fmt::format("the AVG reduction would sum the {} identities, which overflow {}",
                       reduceTypeName(high.reduce), dtypeName(dtype));
  return {};
}

void checkReachable(const Layout& dst, DType dtype) {
  const Placements& p = dst.placements;
  for (size_t low = 0; low < p.size(); ++low)
    for (size_t high = low + 1; high < p.size() && p[low].isPartial(); ++high) {
      if (!p[high].isPartial()) continue;
      const std::string why = unreachableBecause(p[low], p[high], dtype);
      if (!why.empty())
        throw PlanError(fmt::format("destination {} cannot be made (partial mesh dim {} below mesh dim {}): {}",
                                    placementsText(p), low, high, why));
    }
}

// Every byte count of a plan (a step's padded buffer) must fit in 64 bits; a
// tensor that could overflow one is refused here, never planned with a
// wrapped size. A tensor dim is split by one mesh dim at a time, so padded to
// at most its extent plus that mesh dim's size (ceil(n/k) * k < n + k); a
// collective over several mesh dims takes one padded chunk of each split dim
// per member, which is no more. (Adding the whole mesh's ranks to every dim
// refused a 16 GB tensor of 16 dims on a 16-dim mesh of 65,536 ranks.)
void checkSizeFits(const Problem& problem) {
  int64_t widest = 1;  // the largest mesh dim of either mesh
  for (const ProcessMesh* mesh : {&problem.src.mesh, &problem.dst.mesh})
    for (int64_t extent : mesh->shape) widest = std::max(widest, extent);
  int64_t bound = dtypeSize(problem.tensor.dtype);
  for (int64_t extent : problem.tensor.shape) {
    int64_t padded = 0;
    if (__builtin_add_overflow(extent, widest, &padded) || __builtin_mul_overflow(bound, padded, &bound))
      throw PlanError(fmt::format("the tensor ({}x{}) is too large: its size in bytes does not fit in 64 bits",
                                  fmt::join(problem.tensor.shape, "x"), dtypeName(problem.tensor.dtype)));
  }
}

}  // namespace

Problem prepare(const ReshardRequest& request) {
  Problem problem;
  problem.tensor.dtype = request.dtype;
  for (int64_t extent : request.shape) {
    if (extent < -1) throw PlanError(fmt::format("tensor dim of size {}", extent));
    problem.shapeKnown = problem.shapeKnown && extent >= 0;
    problem.tensor.shape.push_back(extent < 0 ? 1 : extent);  // unknown dims are costed as 1
  }
  problem.src = checkedLayout(request.src, request.shape.size(), "source");
  problem.dst = checkedLayout(request.dst, request.shape.size(), "destination");
  // A mesh known only by its shape equals the one with ids: plan with the ids.
  if (problem.src.mesh == problem.dst.mesh) {
    if (!problem.src.mesh.idsKnown) problem.src.mesh = problem.dst.mesh;
    problem.dst.mesh = problem.src.mesh;
  }
  checkReachable(problem.dst, request.dtype);
  checkSizeFits(problem);
  addReduces(problem.src, problem.reduces);
  addReduces(problem.dst, problem.reduces);
  return problem;
}

Plan assemblePlan(const Problem& problem, const std::vector<Edge>& path) {
  Plan plan;
  plan.src = problem.src;
  plan.dst = problem.dst;
  plan.shape = problem.tensor.shape;
  plan.dtype = problem.tensor.dtype;
  plan.shapeKnown = problem.shapeKnown;
  for (const Edge& edge : path) {
    if (!edge.step) continue;
    plan.steps.push_back(*edge.step);
    plan.estUs += edge.step->estUs;
  }
  return plan;
}

}  // namespace reshardctl::planning
