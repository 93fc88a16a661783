#include "reshard/planner.h"

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "reshard/reduce_op.h"
#include "reshard/transition.h"

namespace reshardctl {

namespace {

// A request checked and converted to layouts.
struct Problem {
  TensorSpec tensor;
  bool shapeKnown = true;
  Layout src;
  Layout dst;
  std::vector<ReduceType> reduces;  // the partial types the search may use

  bool crossMesh() const { return !(src.mesh == dst.mesh); }
};

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

// Every byte count of a plan (a step's padded buffer: each dim at most its
// extent plus one chunk's padding per rank) must fit in 64 bits; a tensor
// that could overflow one is refused here, never planned with a wrapped size.
void checkSizeFits(const Problem& problem) {
  int64_t ranks = std::max(problem.src.mesh.size(), problem.dst.mesh.size());
  int64_t bound = dtypeSize(problem.tensor.dtype);
  for (int64_t extent : problem.tensor.shape) {
    int64_t padded = 0;
    if (__builtin_add_overflow(extent, ranks, &padded) || __builtin_mul_overflow(bound, padded, &bound))
      throw PlanError(fmt::format("the tensor ({}x{}) is too large: its size in bytes does not fit in 64 bits",
                                  fmt::join(problem.tensor.shape, "x"), dtypeName(problem.tensor.dtype)));
  }
}

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

// ---- min-cost search ----

// The placements every mesh dim may take in the search.
std::vector<Placement> placementOptions(const Problem& problem) {
  std::vector<Placement> options{Placement::replicate()};
  for (int64_t dim = 0; dim < problem.tensor.rank(); ++dim) options.push_back(Placement::shard(dim));
  for (ReduceType type : problem.reduces) options.push_back(Placement::partial(type));
  return options;
}

// Every layout of `mesh` without partials that Paddle can express.
std::vector<Placements> unreducedLayouts(const ProcessMesh& mesh, int64_t tensorRank) {
  std::vector<Placements> layouts{{}};
  for (int64_t meshDim = 0; meshDim < mesh.ndim(); ++meshDim) {
    std::vector<Placements> longer;
    for (const Placements& prefix : layouts)
      for (int64_t choice = -1; choice < tensorRank; ++choice) {
        Placements next = prefix;
        next.push_back(choice < 0 ? Placement::replicate() : Placement::shard(choice));
        if (isRepresentable(next, tensorRank)) longer.push_back(std::move(next));
      }
    layouts = std::move(longer);
  }
  return layouts;
}

// A search state: on which mesh (0 source, 1 destination) and the placements,
// encoded as small integers so that states order and compare cheaply.
using StateKey = std::vector<int64_t>;

StateKey keyOf(int64_t side, const Placements& placements) {
  StateKey key{side};
  for (const Placement& p : placements)
    key.push_back(p.isReplicate() ? 0 : p.isShard() ? 1 + p.dim : 1000 + static_cast<int64_t>(p.reduce));
  return key;
}

struct Visit {
  double cost = 0;
  size_t steps = 0;
  std::optional<StateKey> previous;
  Edge via;  // the edge that reached this state
  bool settled = false;
};

class MinCostSearch {
 public:
  MinCostSearch(const Problem& problem, const CostModel& costs)
      : problem_(problem), costs_(costs), options_(placementOptions(problem)) {
    if (problem.crossMesh()) destinationLayouts_ = unreducedLayouts(problem.dst.mesh, problem.tensor.rank());
  }

  std::vector<Edge> run() {
    const StateKey start = keyOf(0, problem_.src.placements);
    const StateKey goal = keyOf(problem_.crossMesh() ? 1 : 0, problem_.dst.placements);
    visits_[start] = Visit{0.0, 0, std::nullopt, Edge{problem_.src, std::nullopt, 0.0}, false};
    queue_.push({0.0, 0, start});
    while (!queue_.empty()) {
      const auto [cost, steps, key] = queue_.top();
      queue_.pop();
      Visit& visit = visits_[key];
      if (visit.settled) continue;
      visit.settled = true;
      if (key == goal) return pathTo(goal);
      const Layout layout = visit.via.to;
      expand(key, layout, cost, steps);
    }
    throw PlanError(fmt::format("no sequence of primitives turns {} into {}", layoutText(problem_.src),
                                layoutText(problem_.dst)));
  }

 private:
  using Entry = std::tuple<double, size_t, StateKey>;

  void expand(const StateKey& key, const Layout& layout, double cost, size_t steps) {
    const int64_t side = key.front();
    for (int64_t meshDim = 0; meshDim < layout.mesh.ndim(); ++meshDim)
      for (const Placement& option : options_)
        if (auto edge = meshDimTransition(layout, meshDim, option, problem_.tensor, costs_))
          relax(key, side, *edge, cost, steps);
    if (side == 0 && problem_.crossMesh()) expandAcrossMeshes(key, layout, cost, steps);
  }

  void expandAcrossMeshes(const StateKey& key, const Layout& layout, double cost, size_t steps) {
    if (layout.mesh.shape == problem_.dst.mesh.shape)
      if (auto edge = meshChange(layout, {problem_.dst.mesh, layout.placements}, problem_.tensor, costs_))
        relax(key, 1, *edge, cost, steps);
    for (const Placements& placements : destinationLayouts_)
      if (auto edge = meshChange(layout, {problem_.dst.mesh, placements}, problem_.tensor, costs_))
        relax(key, 1, *edge, cost, steps);
  }

  void relax(const StateKey& from, int64_t side, const Edge& edge, double cost, size_t steps) {
    const StateKey next = keyOf(side, edge.to.placements);
    const double nextCost = cost + edge.cost;
    const size_t nextSteps = steps + (edge.step ? 1 : 0);
    auto found = visits_.find(next);
    if (found != visits_.end() &&
        std::tie(found->second.cost, found->second.steps) <= std::tie(nextCost, nextSteps))
      return;
    visits_[next] = Visit{nextCost, nextSteps, from, edge, false};
    queue_.push({nextCost, nextSteps, next});
  }

  std::vector<Edge> pathTo(const StateKey& goal) const {
    std::vector<Edge> path;
    for (const Visit* visit = &visits_.at(goal); visit->previous; visit = &visits_.at(*visit->previous))
      path.push_back(visit->via);
    std::reverse(path.begin(), path.end());
    return path;
  }

  const Problem& problem_;
  const CostModel& costs_;
  std::vector<Placement> options_;
  std::vector<Placements> destinationLayouts_;
  std::map<StateKey, Visit> visits_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_;
};

// ---- greedy ----

class GreedyPath {
 public:
  GreedyPath(const Problem& problem, const CostModel& costs, Layout start)
      : problem_(problem), costs_(costs), current_(std::move(start)) {}

  // Appends the per-mesh-dim steps from the current layout to `target` on the same mesh.
  void reach(const Placements& target) {
    const std::vector<bool> unwind = partialsToUnwind(target);
    const int64_t ndim = current_.mesh.ndim();
    for (int64_t m = 0; m < ndim; ++m)
      if (at(m).isPartial() && (at(m) != target[size(m)] || unwind[size(m)])) move(m, Placement::replicate());
    for (int64_t m = ndim; m-- > 0;)
      if (at(m).isShard() && at(m) != target[size(m)]) move(m, Placement::replicate());
    for (int64_t m = ndim; m-- > 0;)
      if (target[size(m)].isPartial() && at(m) != target[size(m)]) move(m, target[size(m)]);
    for (int64_t m = 0; m < ndim; ++m)
      if (target[size(m)].isShard() && at(m) != target[size(m)]) move(m, target[size(m)]);
  }

  void changeMesh(const Layout& to) {
    auto edge = meshChange(current_, to, problem_.tensor, costs_);
    if (!edge) throw PlanError("greedy plan: no send_recv between these layouts");
    path_.push_back(*edge);
    current_ = edge->to;
  }

  const Layout& current() const { return current_; }
  const std::vector<Edge>& path() const { return path_; }

 private:
  static size_t size(int64_t m) { return static_cast<size_t>(m); }
  const Placement& at(int64_t m) const { return current_.placements[size(m)]; }

  void move(int64_t meshDim, const Placement& to) {
    auto edge = meshDimTransition(current_, meshDim, to, problem_.tensor, costs_);
    if (!edge)
      throw PlanError(fmt::format("greedy plan: cannot change mesh dim {} of {} to {}", meshDim,
                                  layoutText(current_), placementText(to)));
    path_.push_back(*edge);
    current_ = edge->to;
  }

  // Partial dims that stay partial but would block a reduction that changes
  // elsewhere (the rules of meshDimTransition): they are reduced and made again.
  std::vector<bool> partialsToUnwind(const Placements& target) const {
    const size_t ndim = target.size();
    std::vector<bool> unwind(ndim, false);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t kept = 0; kept < ndim; ++kept) {
        const Placement& mine = current_.placements[kept];
        if (unwind[kept] || !mine.isPartial() || mine != target[kept]) continue;
        for (size_t other = 0; other < ndim; ++other)
          if (other != kept && blocks(other, kept, target, unwind)) unwind[kept] = changed = true;
      }
    }
    return unwind;
  }

  // Whether changing mesh dim `other` needs the partial on `kept` out of the way.
  bool blocks(size_t other, size_t kept, const Placements& target, const std::vector<bool>& unwind) const {
    const Placement& before = current_.placements[other];
    const Placement& after = target[other];
    if (!unwind[other] && before == after) return false;
    const ReduceType mine = current_.placements[kept].reduce;
    auto logical = [](ReduceType type) { return type == ReduceType::Any || type == ReduceType::All; };
    const bool resolveBlocked = before.isPartial() && other > kept && !reducesCommute(before.reduce, mine);
    const bool createBlocked = after.isPartial() && ((other > kept && !reducesCommute(after.reduce, mine)) ||
                                                     (logical(after.reduce) && after.reduce != mine));
    return resolveBlocked || createBlocked;
  }

  const Problem& problem_;
  const CostModel& costs_;
  Layout current_;
  std::vector<Edge> path_;
};

Placements allReplicated(const ProcessMesh& mesh) { return Placements(static_cast<size_t>(mesh.ndim())); }

}  // namespace

Plan planMinCost(const ReshardRequest& request, const CostModel& costs) {
  const Problem problem = prepare(request);
  return assemblePlan(problem, MinCostSearch(problem, costs).run());
}

Plan planGreedy(const ReshardRequest& request, const CostModel& costs) {
  const Problem problem = prepare(request);
  GreedyPath greedy(problem, costs, problem.src);
  if (!problem.crossMesh()) {
    greedy.reach(problem.dst.placements);
  } else if (problem.src.mesh.shape == problem.dst.mesh.shape) {
    greedy.changeMesh({problem.dst.mesh, problem.src.placements});
    greedy.reach(problem.dst.placements);
  } else {
    greedy.reach(allReplicated(problem.src.mesh));
    greedy.changeMesh({problem.dst.mesh, allReplicated(problem.dst.mesh)});
    greedy.reach(problem.dst.placements);
  }
  return assemblePlan(problem, greedy.path());
}

}  // namespace reshardctl
