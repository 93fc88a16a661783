#include "reshard/planner.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "reshard/path_improvement.h"
#include "reshard/reduce_on_arrival.h"
#include "reshard/reduce_op.h"
#include "reshard/reshard_problem.h"
#include "reshard/transition.h"

namespace reshardctl {

namespace {

using planning::assemblePlan;
using planning::prepare;
using planning::Problem;

// A plan as the placements it passes through on the source mesh and, between
// meshes, then on the destination mesh. The searches find routes on meshes
// known by their shape only (costs do not depend on process ids) and build
// the chosen route's steps in full at the end (routeEdges).
struct Route {
  std::vector<Placements> onSource;
  std::vector<Placements> onDestination;  // empty on one mesh
};

ProcessMesh shapeOnly(const ProcessMesh& mesh) { return ProcessMesh(mesh.shape, {}, false); }

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
  size_t pointToPoint = 0;  // send_recv steps on the way: of equal plans, the one with fewest
};

// Costs this close are equal (sums of the same terms in another order), so
// that a tie goes to fewer steps, then to collectives over send_recv pairs.
constexpr double kCostTieUs = 1e-9;

bool better(double cost, size_t steps, size_t pointToPoint, const Visit& known) {
  if (cost < known.cost - kCostTieUs) return true;
  if (cost > known.cost + kCostTieUs) return false;
  return std::tie(steps, pointToPoint) < std::tie(known.steps, known.pointToPoint);
}

// The changes of several mesh dims at once that one flattened collective may
// make (transition.h's flattenedCollective): every subset of two or more of the
// partial dims of one type to R (all_reduce) or, where `goal` splits each of
// them, to the goal's splits (reduce_scatter); every such subset of the split
// dims to R (all_gather). Beyond kFlattenedSubsetDims dims of a kind, only all of
// them: at most 3 * (2^4 - 5) = 33 edges per kind and state.
constexpr size_t kFlattenedSubsetDims = 4;

void addSubsets(const Placements& from, const std::vector<int64_t>& dims,
                const std::function<Placement(int64_t)>& target, std::vector<Placements>& moves) {
  if (dims.size() < 2) return;
  auto add = [&](const std::vector<int64_t>& subset) {
    Placements next = from;
    for (int64_t dim : subset) next[static_cast<size_t>(dim)] = target(dim);
    moves.push_back(std::move(next));
  };
  if (dims.size() > kFlattenedSubsetDims) return add(dims);
  for (uint32_t mask = 1; mask < (1u << dims.size()); ++mask) {
    std::vector<int64_t> subset;
    for (size_t i = 0; i < dims.size(); ++i)
      if (mask & (1u << i)) subset.push_back(dims[i]);
    if (subset.size() >= 2) add(subset);
  }
}

std::vector<Placements> flattenedMoves(const Placements& placements, const Placements* goal) {
  std::map<ReduceType, std::vector<int64_t>> partialsByType;
  std::map<ReduceType, std::vector<int64_t>> scatterableByType;
  std::vector<int64_t> splits;
  for (size_t dim = 0; dim < placements.size(); ++dim) {
    const Placement& p = placements[dim];
    if (p.isShard()) splits.push_back(static_cast<int64_t>(dim));
    if (!p.isPartial()) continue;
    partialsByType[p.reduce].push_back(static_cast<int64_t>(dim));
    if (goal != nullptr && (*goal)[dim].isShard()) scatterableByType[p.reduce].push_back(static_cast<int64_t>(dim));
  }
  std::vector<Placements> moves;
  auto replicated = [](int64_t) { return Placement::replicate(); };
  for (const auto& [type, dims] : partialsByType) addSubsets(placements, dims, replicated, moves);
  for (const auto& [type, dims] : scatterableByType)
    addSubsets(placements, dims, [&](int64_t dim) { return (*goal)[static_cast<size_t>(dim)]; }, moves);
  addSubsets(placements, splits, replicated, moves);
  return moves;
}

bool unreduced(const Placements& placements) {
  return std::none_of(placements.begin(), placements.end(), [](const Placement& p) { return p.isPartial(); });
}

// The layouts a permutation (transition.h) may lead to in the search: the
// goal with each partial dim replicated or, where representable, split over a
// tensor dim (a partial made from a split keeps each rank's chunk, so less has
// to move first), on the goal's mesh of at most kPermutationRanks processes.
// Beyond kPermutationPartials partial dims, only the replicated variant: at most
// (1 + tensor rank)^2 targets.
constexpr size_t kPermutationPartials = 2;

std::vector<Placements> permutationTargets(const Problem& problem) {
  if (problem.dst.mesh.size() > kPermutationRanks) return {};
  std::vector<Placements> targets{problem.dst.placements};
  size_t partials = 0;
  for (const Placement& p : problem.dst.placements) partials += p.isPartial() ? 1 : 0;
  for (size_t dim = 0; dim < problem.dst.placements.size(); ++dim) {
    if (!problem.dst.placements[dim].isPartial()) continue;
    std::vector<Placements> longer;
    for (const Placements& target : targets) {
      Placements next = target;
      next[dim] = Placement::replicate();
      longer.push_back(next);
      for (int64_t tensorDim = 0; partials <= kPermutationPartials && tensorDim < problem.tensor.rank(); ++tensorDim) {
        next[dim] = Placement::shard(tensorDim);
        if (isRepresentable(next, problem.tensor.rank())) longer.push_back(next);
      }
    }
    targets = std::move(longer);
  }
  return targets;
}

class MinCostSearch {
 public:
  MinCostSearch(const Problem& problem, const CostModel& costs)
      : problem_(problem),
        costs_(costs),
        options_(placementOptions(problem)),
        permutationTargets_(permutationTargets(problem)) {
    if (problem.crossMesh()) destinationLayouts_ = unreducedLayouts(problem.dst.mesh, problem.tensor.rank());
  }

  Route run() {
    const StateKey start = keyOf(0, problem_.src.placements);
    const StateKey goal = keyOf(problem_.crossMesh() ? 1 : 0, problem_.dst.placements);
    const Layout startLayout{shapeOnly(problem_.src.mesh), problem_.src.placements};
    visits_[start] = Visit{0.0, 0, std::nullopt, Edge{startLayout, std::nullopt, 0.0}, false};
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
        if (auto edge = meshDimTransition(layout, meshDim, option, problem_.tensor, costs_, StepDetail::CostOnly))
          relax(key, side, *edge, cost, steps);
    const bool onGoalMesh = side == (problem_.crossMesh() ? 1 : 0);
    const Placements* goal = onGoalMesh ? &problem_.dst.placements : nullptr;
    for (const Placements& to : flattenedMoves(layout.placements, goal))
      if (auto edge = collectiveChange(layout, to, problem_.tensor, costs_, StepDetail::CostOnly))
        relax(key, side, *edge, cost, steps);
    if (onGoalMesh && unreduced(layout.placements))
      for (const Placements& to : permutationTargets_)
        if (auto edge = permutation(layout, to, problem_.tensor, costs_)) relax(key, side, *edge, cost, steps);
    if (side == 0 && problem_.crossMesh()) expandAcrossMeshes(key, layout, cost, steps);
  }

  // Moves between meshes take the real meshes (who sends to whom depends on
  // the process ids); the state reached keeps the shape only.
  void expandAcrossMeshes(const StateKey& key, const Layout& layout, double cost, size_t steps) {
    const Layout from{problem_.src.mesh, layout.placements};
    auto across = [&](const Placements& placements) {
      if (auto edge = meshCrossing(from, {problem_.dst.mesh, placements}, problem_.tensor, costs_)) {
        edge->to.mesh = shapeOnly(problem_.dst.mesh);
        relax(key, 1, *edge, cost, steps);
      }
    };
    if (layout.mesh.shape == problem_.dst.mesh.shape) across(layout.placements);
    for (const Placements& placements : destinationLayouts_) across(placements);
  }

  void relax(const StateKey& from, int64_t side, const Edge& edge, double cost, size_t steps) {
    const StateKey next = keyOf(side, edge.to.placements);
    const double nextCost = cost + edge.cost;
    const size_t nextSteps = steps + (edge.step ? 1 : 0);
    const bool sends = edge.step && edge.step->kind == StepKind::SendRecv;
    const size_t nextPointToPoint = visits_.at(from).pointToPoint + (sends ? 1 : 0);
    auto found = visits_.find(next);
    if (found != visits_.end() && (found->second.settled || !better(nextCost, nextSteps, nextPointToPoint, found->second)))
      return;
    visits_[next] = Visit{nextCost, nextSteps, from, edge, false, nextPointToPoint};
    queue_.push({nextCost, nextSteps, next});
  }

  Route pathTo(const StateKey& goal) const {
    std::vector<const StateKey*> keys;
    for (const StateKey* key = &goal; key != nullptr;) {
      keys.push_back(key);
      const Visit& visit = visits_.at(*key);
      key = visit.previous ? &*visit.previous : nullptr;
    }
    Route route;
    for (auto key = keys.rbegin(); key != keys.rend(); ++key) {
      const Placements& placements = visits_.at(**key).via.to.placements;
      ((*key)->front() == 0 ? route.onSource : route.onDestination).push_back(placements);
    }
    return route;
  }

  const Problem& problem_;
  const CostModel& costs_;
  std::vector<Placement> options_;
  std::vector<Placements> permutationTargets_;
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

// ---- which search ----

// The placement lists of `meshDims` dims with `tensorRank` split choices used
// at most once each and `others` more choices (R and the partial types):
// sum over k splits of C(n,k) * r!/(r-k)! * others^(n-k). A double: it only
// has to say "too many".
double layoutCount(int64_t meshDims, int64_t tensorRank, int64_t others) {
  double total = 0;
  double ways = 1;  // C(n,k) * r!/(r-k)!
  for (int64_t k = 0; k <= std::min(meshDims, tensorRank); ++k) {
    total += ways * std::pow(static_cast<double>(others), static_cast<double>(meshDims - k));
    ways *= static_cast<double>(meshDims - k) / static_cast<double>(k + 1) * static_cast<double>(tensorRank - k);
  }
  return total;
}

// The edges the exact search may evaluate: every state's moves on its mesh,
// and between meshes every unreduced source layout to every destination
// layout, a move that lists each destination rank's parts (counted per rank).
double exactSearchWork(const Problem& problem) {
  const int64_t rank = problem.tensor.rank();
  const int64_t options = 1 + rank + static_cast<int64_t>(problem.reduces.size());
  auto sideWork = [&](const ProcessMesh& mesh) {
    const int64_t others = 1 + static_cast<int64_t>(problem.reduces.size());
    return layoutCount(mesh.ndim(), rank, others) * static_cast<double>(mesh.ndim() * options);
  };
  // A permutation from each unreduced layout of the goal's mesh, listing each rank's parts.
  const ProcessMesh& goalMesh = problem.dst.mesh;
  double work = sideWork(problem.src.mesh);
  if (goalMesh.size() <= kPermutationRanks)
    work += layoutCount(goalMesh.ndim(), rank, 1) * static_cast<double>(goalMesh.size());
  if (!problem.crossMesh()) return work;
  work += sideWork(problem.dst.mesh);
  const double sourceLayouts = layoutCount(problem.src.mesh.ndim(), rank, 1);
  const double destinationLayouts = layoutCount(problem.dst.mesh.ndim(), rank, 1);
  return work + sourceLayouts * (1 + destinationLayouts) * static_cast<double>(problem.dst.mesh.size());
}

// ---- the bounded fallback ----

std::vector<Placements> waypointsOf(const Placements& start, const std::vector<Edge>& edges) {
  std::vector<Placements> waypoints{start};
  for (const Edge& edge : edges) waypoints.push_back(edge.to.placements);
  return waypoints;
}

// Paddle's per-mesh-dim plan (planGreedy) as a route.
Route paddleRoute(const Problem& problem, const CostModel& costs) {
  GreedyPath onSource(problem, costs, problem.src);
  Placements sent;
  if (!problem.crossMesh()) {
    onSource.reach(problem.dst.placements);
    return {waypointsOf(problem.src.placements, onSource.path()), {}};
  }
  const bool sameShape = problem.src.mesh.shape == problem.dst.mesh.shape;
  if (!sameShape) onSource.reach(allReplicated(problem.src.mesh));
  sent = sameShape ? problem.src.placements : allReplicated(problem.dst.mesh);
  GreedyPath onDestination(problem, costs, {problem.dst.mesh, sent});
  onDestination.reach(problem.dst.placements);
  return {waypointsOf(problem.src.placements, onSource.path()), waypointsOf(sent, onDestination.path())};
}

// DTensor's order (_gen_transform_infos_non_cached in PyTorch's
// torch/distributed/tensor/_redistribute.py): mesh dims in ascending order,
// each straight from its placement to its target. A change no one primitive
// makes goes through R; one the reduction order forbids yet waits for the next
// round (at most one round per mesh dim). A shard whose target cannot be made
// yet stays replicated, as DTensor's first pass (inner to outer mesh dims)
// replicates a mesh dim whose target split is misaligned with the lower mesh
// dims' splits: [S(0),S(1)] -> [S(1),S(0)] is all_gather, all_to_all, slice there
// too. nullopt when it gets stuck.
std::optional<Route> dtensorRoute(const Problem& problem, const CostModel& costs) {
  if (problem.crossMesh()) return std::nullopt;  // DTensor redistributes on one mesh only
  const ProcessMesh shapeOnly(problem.src.mesh.shape, {}, false);
  const Placements& target = problem.dst.placements;
  std::vector<Placements> waypoints{problem.src.placements};
  auto step = [&](size_t dim, const Placement& to) {
    Placements next = waypoints.back();
    next[dim] = to;
    if (hopCost(shapeOnly, waypoints.back(), next, problem.tensor, costs) < 0) return false;
    waypoints.push_back(std::move(next));
    return true;
  };
  for (int64_t round = 0; round <= problem.src.mesh.ndim() && waypoints.back() != target; ++round)
    for (size_t dim = 0; dim < target.size(); ++dim) {
      if (waypoints.back()[dim] == target[dim] || step(dim, target[dim])) continue;
      // A shard that cannot move yet stays gathered; any other detour is undone.
      const bool shard = waypoints.back()[dim].isShard();
      if (!waypoints.back()[dim].isReplicate() && step(dim, Placement::replicate()) && !step(dim, target[dim]) &&
          !shard)
        waypoints.pop_back();
    }
  if (waypoints.back() != target) return std::nullopt;
  return Route{std::move(waypoints), {}};
}

double routeCost(const Problem& problem, const Route& route, const CostModel& costs) {
  auto along = [&](const ProcessMesh& mesh, const std::vector<Placements>& waypoints) {
    double sum = 0;
    for (size_t i = 0; i + 1 < waypoints.size(); ++i)
      sum += hopCost(mesh, waypoints[i], waypoints[i + 1], problem.tensor, costs);
    return sum;
  };
  double cost = along(problem.src.mesh, route.onSource);
  if (route.onDestination.empty()) return cost;
  const auto change = meshCrossing({problem.src.mesh, route.onSource.back()},
                                 {problem.dst.mesh, route.onDestination.front()}, problem.tensor, costs);
  return cost + (change ? change->cost : 0.0) + along(problem.dst.mesh, route.onDestination);
}

// Which hops on the source mesh placementChange made by a collective step
// (meshDim >= 0; a permutation's steps have none): a route built again on the
// same mesh shape makes them so again, so they skip the permutation it weighs.
using CollectiveHops = std::vector<bool>;

// The route's steps, built in full (groups included). `known`: the source
// mesh's collective hops of an earlier build of this route; `made`: where to
// write them.
std::vector<Edge> routeEdges(const Problem& problem, const Route& route, const CostModel& costs,
                             const CollectiveHops* known = nullptr, CollectiveHops* made = nullptr) {
  std::vector<Edge> edges;
  Layout current = problem.src;
  auto walk = [&](const std::vector<Placements>& waypoints, const CollectiveHops* hints, CollectiveHops* record) {
    for (size_t i = 1; i < waypoints.size(); ++i) {
      const bool collective = hints != nullptr && i - 1 < hints->size() && (*hints)[i - 1];
      auto edge = collective ? collectiveChange(current, waypoints[i], problem.tensor, costs)
                             : placementChange(current, waypoints[i], problem.tensor, costs);
      if (!edge) throw PlanError("a step of the planned route has no primitive");
      if (record != nullptr) record->push_back(edge->step && edge->step->meshDim >= 0);
      current = edge->to;
      edges.push_back(std::move(*edge));
    }
  };
  walk(route.onSource, known, made);
  if (route.onDestination.empty()) return edges;
  auto change = meshCrossing(current, {problem.dst.mesh, route.onDestination.front()}, problem.tensor, costs);
  if (!change) throw PlanError("dim-by-dim plan: no send_recv between these layouts");
  current = change->to;
  edges.push_back(std::move(*change));
  walk(route.onDestination, nullptr, nullptr);
  return edges;
}

Route improved(const Problem& problem, Route route, const CostModel& costs) {
  route.onSource = improvePath(problem.src.mesh, std::move(route.onSource), problem.tensor, costs);
  if (!route.onDestination.empty())
    route.onDestination = improvePath(problem.dst.mesh, std::move(route.onDestination), problem.tensor, costs);
  return route;
}

// The cheaper of Paddle's and DTensor's dim-by-dim routes, each improved.
Route dimByDimRoute(const Problem& problem, const CostModel& costs) {
  std::vector<Route> candidates;
  std::string paddleFailure;
  try {
    candidates.push_back(improved(problem, paddleRoute(problem, costs), costs));
  } catch (const PlanError& error) {
    paddleFailure = error.what();
  }
  if (auto dtensor = dtensorRoute(problem, costs)) candidates.push_back(improved(problem, *dtensor, costs));
  if (candidates.empty()) throw PlanError(paddleFailure);
  const Route* best = &candidates.front();
  for (const Route& route : candidates)
    if (routeCost(problem, route, costs) < routeCost(problem, *best, costs) - 1e-9) best = &route;
  return *best;
}

// ---- the route memo ----

// The route planMinCost chose, the search that found it, and (once built) its
// collective hops.
struct ChosenRoute {
  Route route;
  SearchKind search = SearchKind::Exact;
  CollectiveHops collectiveHops;
};

// The plan of a chosen route; the first build records its collective hops,
// later ones (from the memo) use them.
Plan builtPlan(const Problem& problem, ChosenRoute& chosen, const CostModel& costs) {
  const bool known = !chosen.collectiveHops.empty();
  Plan plan = assemblePlan(problem, routeEdges(problem, chosen.route, costs, known ? &chosen.collectiveHops : nullptr,
                                               known ? nullptr : &chosen.collectiveHops));
  plan.search = chosen.search;
  return plan;
}

// planMinCost's choice, building the candidates' steps to compare them; the
// plan built from the chosen route is handed back in `built`.
ChosenRoute chooseRoute(const Problem& problem, const CostModel& costs, Plan& built) {
  if (exactSearchWork(problem) > kExactSearchWork) {
    ChosenRoute chosen{dimByDimRoute(problem, costs), SearchKind::DimByDim, {}};
    built = builtPlan(problem, chosen, costs);
    return chosen;
  }
  ChosenRoute chosen{MinCostSearch(problem, costs).run(), SearchKind::Exact, {}};
  built = builtPlan(problem, chosen, costs);
  // A permutation may reach layouts the search does not try from every state;
  // the dim-by-dim routes' shortcuts try it between any two of theirs.
  try {
    ChosenRoute bounded{dimByDimRoute(problem, costs), SearchKind::Exact, {}};
    Plan boundedPlan = builtPlan(problem, bounded, costs);
    if (boundedPlan.estUs < built.estUs - kCostTieUs) {
      built = std::move(boundedPlan);
      return bounded;
    }
  } catch (const PlanError&) {
  }
  return chosen;
}

template <typename T>
void appendBytes(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// On one mesh no cost depends on the process ids (the searches run on meshes
// known by their shape; a permutation's pairs are priced by the mesh dims
// they cross), so requests that differ only in their ids choose the same
// route: the key is everything else the choice reads. Between meshes, where
// who sends to whom (and over which link) depends on the ids, the key holds
// both meshes' ids too: lowering every rank plans each reshard once, not once
// per rank (a reshard between two meshes of 128 ranks was searched again for
// each of the 256 ranks).
std::string routeKey(const Problem& problem, const CostModel& costs) {
  std::string key;
  appendBytes(key, problem.crossMesh());
  if (problem.crossMesh())
    for (const ProcessMesh* mesh : {&problem.src.mesh, &problem.dst.mesh}) {
      appendBytes(key, mesh->idsKnown);
      appendBytes(key, mesh->shape.size());
      for (int64_t extent : mesh->shape) appendBytes(key, extent);
      appendBytes(key, mesh->processIds.size());
      for (int64_t id : mesh->processIds) appendBytes(key, id);
    }
  appendBytes(key, problem.tensor.dtype);
  for (const std::vector<int64_t>* list : {&problem.tensor.shape, &problem.src.mesh.shape}) {
    appendBytes(key, list->size());
    for (int64_t value : *list) appendBytes(key, value);
  }
  for (const Placements* placements : {&problem.src.placements, &problem.dst.placements})
    for (const Placement& p : *placements) {
      appendBytes(key, p.kind);
      appendBytes(key, p.isShard() ? p.dim : static_cast<int64_t>(p.reduce));
    }
  appendBytes(key, costs.meshDims.size());
  for (const LinkSpec& link : costs.meshDims) appendBytes(key, link);
  for (const LinkSpec& link : {costs.link, costs.crossMesh, costs.withinNode}) appendBytes(key, link);
  for (double value : {costs.launchUs, costs.localBandwidthGBs, costs.localLaunchUs}) appendBytes(key, value);
  appendBytes(key, costs.processesPerNode);
  return key;
}

// A program repeats its reshards (every layer, forward and backward, each
// stage on its own processes): each thread remembers the routes it chose, at
// most kRouteMemoEntries of them whose keys hold at most kRouteMemoKeyBytes
// (keys between meshes hold their process ids; then it starts again), each a
// few placement lists of at most (mesh dims) entries.
constexpr size_t kRouteMemoEntries = 4096;
constexpr size_t kRouteMemoKeyBytes = size_t{16} << 20;

struct RouteMemo {
  std::unordered_map<std::string, ChosenRoute> routes;
  size_t keyBytes = 0;
};

RouteMemo& routeMemo() {
  thread_local RouteMemo memo;
  return memo;
}

}  // namespace

Plan planMinCost(const ReshardRequest& request, const CostModel& costs) {
  const Problem problem = prepare(request);
  const std::string key = routeKey(problem, costs);
  RouteMemo& memo = routeMemo();
  if (auto known = memo.routes.find(key); known != memo.routes.end()) return builtPlan(problem, known->second, costs);
  Plan plan;
  ChosenRoute chosen = chooseRoute(problem, costs, plan);
  if (memo.routes.size() >= kRouteMemoEntries || memo.keyBytes + key.size() > kRouteMemoKeyBytes) {
    memo.routes.clear();
    memo.keyBytes = 0;
  }
  memo.keyBytes += key.size();
  memo.routes.emplace(key, std::move(chosen));
  return plan;
}

Plan planDimByDim(const ReshardRequest& request, const CostModel& costs) {
  const Problem problem = prepare(request);
  ChosenRoute chosen{dimByDimRoute(problem, costs), SearchKind::DimByDim, {}};
  return builtPlan(problem, chosen, costs);
}

std::optional<Plan> planDTensorOrder(const ReshardRequest& request, const CostModel& costs) {
  const Problem problem = prepare(request);
  const std::optional<Route> route = dtensorRoute(problem, costs);
  if (!route) return std::nullopt;
  return assemblePlan(problem, routeEdges(problem, *route, costs));
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
