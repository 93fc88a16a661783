#include "reshard/transition.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>
#include <utility>

#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"
#include "reshard/reduce_op.h"
#include "reshard/send_recv/piece_grid.h"

namespace reshardctl {

namespace {

bool isLogical(ReduceType type) { return type == ReduceType::Any || type == ReduceType::All; }

// Integers hold MAX's and MIN's identities (the type's extremes) exactly, and
// a sum of two of them overflows.
bool extremesOverflowSums(DType dtype) { return !isFloating(dtype) && !isComplex(dtype) && dtype != DType::Bool; }

// Whether a reduction over `meshDim` may be made or removed now: it must be able
// to move below every lower partial mesh dim, and ANY/ALL pieces must stay 0/1:
// made next to a partial of another type, they would keep that type's pieces,
// which need not be 0/1 -- unless the tensor is bool, where every piece is.
// An AVG made below a MAX/MIN keeps the value on every rank, so its reduction
// sums the MAX/MIN pieces: for integers, their identity fills overflow (the
// differential test, seed 4533: [R,R,P(MAX)] -> [R,P(AVG),P(MAX)] on i32).
bool reductionOrderAllows(const Placements& placements, int64_t meshDim, ReduceType type,
                          bool creating, DType dtype) {
  for (size_t dim = 0; dim < placements.size(); ++dim) {
    const Placement& other = placements[dim];
    if (static_cast<int64_t>(dim) == meshDim || !other.isPartial()) continue;
    if (static_cast<int64_t>(dim) < meshDim && !reducesCommute(other.reduce, type)) return false;
    if (creating && isLogical(type) && other.reduce != type && dtype != DType::Bool) return false;
    const bool extremeAbove = static_cast<int64_t>(dim) > meshDim &&
                              (other.reduce == ReduceType::Max || other.reduce == ReduceType::Min);
    if (creating && type == ReduceType::Avg && extremeAbove && extremesOverflowSums(dtype)) return false;
  }
  return true;
}

int64_t paddedBytes(std::vector<int64_t> localShape, const TensorSpec& tensor) {
  return elementCount(localShape) * dtypeSize(tensor.dtype);
}

// The step for a change on a mesh dim of more than one rank, without groups and costs.
std::optional<Step> primitiveFor(const Placement& a, const Placement& b) {
  Step step;
  if (a.isPartial() && b.isReplicate()) {
    step.kind = StepKind::AllReduce;
    step.reduce = a.reduce;
  } else if (a.isPartial() && b.isShard()) {
    step.kind = StepKind::ReduceScatter;
    step.reduce = a.reduce;
    step.tensorDim = b.dim;
  } else if (a.isShard() && b.isReplicate()) {
    step.kind = StepKind::AllGather;
    step.tensorDim = a.dim;
  } else if (a.isShard() && b.isShard()) {
    step.kind = StepKind::AllToAll;
    step.fromTensorDim = a.dim;
    step.tensorDim = b.dim;
  } else if (a.isReplicate() && b.isShard()) {
    step.kind = StepKind::Slice;
    step.tensorDim = b.dim;
  } else if (b.isPartial() && !a.isPartial()) {
    // From a shard, the pieces only reduce back to the value when the other
    // ranks' filler leaves it unchanged: AVG would divide it by the group size.
    if (a.isShard() && b.reduce == ReduceType::Avg) return std::nullopt;
    step.kind = StepKind::PartialInit;
    step.reduce = b.reduce;
    step.fromTensorDim = a.isShard() ? a.dim : -1;
  } else {
    return std::nullopt;  // P(r) -> P(r'): no primitive; the search goes through R or S
  }
  return step;
}

// The per-rank buffer of a step (see Step::bytesPerRank).
int64_t stepBytes(const Step& step, const Layout& from, const Layout& to, int64_t groupSize,
                  const TensorSpec& tensor) {
  std::vector<int64_t> before = paddedLocalShape(tensor.shape, from);
  const std::vector<int64_t> after = paddedLocalShape(tensor.shape, to);
  switch (step.kind) {
    case StepKind::AllReduce:
    case StepKind::AllGather: return paddedBytes(before, tensor);
    case StepKind::ReduceScatter:
    case StepKind::AllToAll: {
      // k equal blocks of the destination chunk along the dim that gets split.
      const size_t dim = static_cast<size_t>(step.tensorDim);
      before[dim] = groupSize * after[dim];
      return paddedBytes(before, tensor);
    }
    case StepKind::Slice:
    case StepKind::PartialInit:
    case StepKind::Scale: return paddedBytes(after, tensor);
    case StepKind::SendRecv: break;
  }
  return 0;
}

// P(SUM) <-> P(AVG) over a group of n ranks, made locally by scaling every
// piece (see Step::scale), where that is exact: real floating point and n a
// power of two, so multiplying or dividing by n only moves the exponent and
// commutes with the rounding of the sums (barring overflow and subnormals).
// Integers are left to the collectives: AVG -> SUM would truncate each piece,
// and n*p can wrap where the sum of p does not.
std::optional<Step> partialRescale(const Placement& a, const Placement& b, int64_t groupSize, DType dtype) {
  const bool sumToAvg = a.reduce == ReduceType::Sum && b.reduce == ReduceType::Avg;
  const bool avgToSum = a.reduce == ReduceType::Avg && b.reduce == ReduceType::Sum;
  const bool powerOfTwo = groupSize > 0 && (groupSize & (groupSize - 1)) == 0;
  if (!a.isPartial() || !b.isPartial() || !(sumToAvg || avgToSum) || !isFloating(dtype) || !powerOfTwo)
    return std::nullopt;
  Step step;
  step.kind = StepKind::Scale;
  step.reduce = b.reduce;
  step.scale = sumToAvg ? static_cast<double>(groupSize) : 1.0 / static_cast<double>(groupSize);
  return step;
}

}  // namespace

std::optional<Edge> meshDimTransition(const Layout& from, int64_t meshDim, const Placement& to,
                                      const TensorSpec& tensor, const CostModel& costs, StepDetail detail) {
  const Placement& current = from.placements[static_cast<size_t>(meshDim)];
  if (current == to) return std::nullopt;
  Edge edge{from, std::nullopt, 0.0};
  edge.to.placements[static_cast<size_t>(meshDim)] = to;
  if (!isRepresentable(edge.to.placements, tensor.rank())) return std::nullopt;
  if (current.isPartial() && !reductionOrderAllows(from.placements, meshDim, current.reduce, false, tensor.dtype))
    return std::nullopt;
  if (to.isPartial() && !reductionOrderAllows(from.placements, meshDim, to.reduce, true, tensor.dtype))
    return std::nullopt;

  const int64_t groupSize = from.mesh.shape[static_cast<size_t>(meshDim)];
  if (groupSize == 1) return edge;  // one rank: its piece is already the new piece
  std::optional<Step> step = partialRescale(current, to, groupSize, tensor.dtype);
  if (!step) step = primitiveFor(current, to);
  if (!step) return std::nullopt;
  step->meshDim = meshDim;
  if (detail == StepDetail::Full) step->groups = groupsAlong(from.mesh, meshDim);
  step->bytesPerRank = stepBytes(*step, from, edge.to, groupSize, tensor);
  step->estUs = costs.collectiveUs(step->kind, groupSize, step->bytesPerRank, meshDim);
  if (detail == StepDetail::Full) {
    step->from = from;
    step->to = edge.to;
  }
  edge.cost = step->estUs;
  edge.step = std::move(step);
  return edge;
}

namespace {

// The kind of a flattened collective's change on one of its mesh dims, nullopt
// for a change no flattened collective makes.
std::optional<StepKind> flattenedKind(const Placement& a, const Placement& b) {
  if (a.isPartial() && b.isReplicate()) return StepKind::AllReduce;
  if (a.isPartial() && b.isShard()) return StepKind::ReduceScatter;
  if (a.isShard() && b.isReplicate()) return StepKind::AllGather;
  return std::nullopt;
}

}  // namespace

std::optional<Edge> flattenedCollective(const Layout& from, const std::vector<int64_t>& meshDims,
                                        const Placements& to, const TensorSpec& tensor, const CostModel& costs,
                                        StepDetail detail) {
  if (meshDims.size() < 2) return std::nullopt;
  Edge edge{from, std::nullopt, 0.0};
  std::optional<StepKind> kind;
  std::optional<ReduceType> reduce;
  int64_t groupSize = 1;
  for (int64_t meshDim : meshDims) {
    const Placement& before = from.placements[static_cast<size_t>(meshDim)];
    const Placement& after = to[static_cast<size_t>(meshDim)];
    const std::optional<StepKind> mine = flattenedKind(before, after);
    if (!mine || (kind && *kind != *mine)) return std::nullopt;
    kind = mine;
    if (before.isPartial()) {
      if (before.reduce == ReduceType::Avg || (reduce && *reduce != before.reduce)) return std::nullopt;
      if (!reductionOrderAllows(edge.to.placements, meshDim, before.reduce, false, tensor.dtype)) return std::nullopt;
      reduce = before.reduce;
    }
    edge.to.placements[static_cast<size_t>(meshDim)] = after;
    groupSize *= from.mesh.shape[static_cast<size_t>(meshDim)];
  }
  if (!isRepresentable(edge.to.placements, tensor.rank())) return std::nullopt;
  if (groupSize == 1) return edge;
  Step step;
  step.kind = *kind;
  step.reduce = reduce;
  step.meshDim = meshDims.front();
  step.meshDims = meshDims;
  const Placement& first = *kind == StepKind::AllGather ? from.placements[static_cast<size_t>(meshDims.front())]
                                                         : edge.to.placements[static_cast<size_t>(meshDims.front())];
  step.tensorDim = first.isShard() ? first.dim : -1;
  if (detail == StepDetail::Full) step.groups = groupsAlong(from.mesh, meshDims);
  // reduce_scatter's input is one padded destination block per member.
  step.bytesPerRank = *kind == StepKind::ReduceScatter
                          ? groupSize * paddedBytes(paddedLocalShape(tensor.shape, edge.to), tensor)
                          : stepBytes(step, from, edge.to, groupSize, tensor);
  step.estUs = costs.collectiveUs(step.kind, groupSize, step.bytesPerRank, meshDims);
  if (detail == StepDetail::Full) {
    step.from = from;
    step.to = edge.to;
  }
  edge.cost = step.estUs;
  edge.step = std::move(step);
  return edge;
}

std::optional<Edge> collectiveChange(const Layout& from, const Placements& to, const TensorSpec& tensor,
                                     const CostModel& costs, StepDetail detail) {
  std::vector<int64_t> changed;
  for (size_t dim = 0; dim < to.size(); ++dim)
    if (from.placements[dim] != to[dim]) changed.push_back(static_cast<int64_t>(dim));
  if (changed.empty()) return Edge{from, std::nullopt, 0.0};
  if (changed.size() == 1)
    return meshDimTransition(from, changed.front(), to[static_cast<size_t>(changed.front())], tensor, costs, detail);
  return flattenedCollective(from, changed, to, tensor, costs, detail);
}

std::optional<Edge> placementChange(const Layout& from, const Placements& to, const TensorSpec& tensor,
                                    const CostModel& costs, StepDetail detail) {
  std::optional<Edge> collective = collectiveChange(from, to, tensor, costs, detail);
  if (collective && !collective->step) return collective;
  std::optional<Edge> moved = permutation(from, to, tensor, costs);
  if (!collective || (moved && moved->cost < collective->cost - 1e-9)) return moved;
  return collective;
}

namespace {

bool hasPartial(const Layout& layout) {
  return std::any_of(layout.placements.begin(), layout.placements.end(),
                     [](const Placement& p) { return p.isPartial(); });
}

// Bytes each process sends and receives across the link, for the cost.
struct Traffic {
  std::map<int64_t, int64_t> sent, received;
  void add(int64_t source, int64_t destination, int64_t bytes) {
    if (source == destination) return;  // stays on the process
    sent[source] += bytes;
    received[destination] += bytes;
  }
  int64_t busiest() const {
    int64_t most = 0;
    for (const auto& [id, bytes] : sent) most = std::max(most, bytes);
    for (const auto& [id, bytes] : received) most = std::max(most, bytes);
    return most;
  }
};

// Where the [source, destination] pairs of a send_recv within one mesh go:
// the mesh dims along which some pair moves (their coordinates differ there),
// ascending, and the most other processes one process sends to or receives from.
struct PairSpan {
  std::vector<int64_t> dims;
  int64_t peers = 0;
};

// The most other processes one process sends to or receives from.
int64_t busiestPeers(const std::vector<std::vector<int64_t>>& pairs) {
  std::map<int64_t, int64_t> sendsTo, receivesFrom;
  int64_t peers = 0;
  for (const std::vector<int64_t>& pair : pairs)
    if (pair[0] != pair[1]) peers = std::max({peers, ++sendsTo[pair[0]], ++receivesFrom[pair[1]]});
  return peers;
}

// nullopt when a destination is not a process of `mesh`: that pair crosses to another mesh.
std::optional<PairSpan> spanWithin(const ProcessMesh& mesh, const std::vector<std::vector<int64_t>>& pairs) {
  std::map<int64_t, MeshCoord> coords;
  for (int64_t position = 0; position < mesh.size(); ++position)
    coords[processIdAt(mesh, position)] = meshCoord(mesh, position);
  std::vector<bool> crossed(static_cast<size_t>(mesh.ndim()), false);
  for (const std::vector<int64_t>& pair : pairs) {
    auto source = coords.find(pair[0]);
    auto destination = coords.find(pair[1]);
    if (source == coords.end() || destination == coords.end()) return std::nullopt;
    if (pair[0] == pair[1]) continue;
    for (size_t dim = 0; dim < crossed.size(); ++dim)
      crossed[dim] = crossed[dim] || source->second[dim] != destination->second[dim];
  }
  PairSpan span;
  for (size_t dim = 0; dim < crossed.size(); ++dim)
    if (crossed[dim]) span.dims.push_back(static_cast<int64_t>(dim));
  span.peers = busiestPeers(pairs);
  return span;
}

// Within the source mesh: its links. Between meshes: the node's link where
// every pair stays within a node (pipeline stages on one node talk over
// NVLink), else the network between nodes.
double sendRecvCost(const ProcessMesh& from, const Step& step, const CostModel& costs) {
  if (const std::optional<PairSpan> span = spanWithin(from, step.groups)) {
    // Where every process is a node of its own, a pair between two processes
    // crosses the network whatever the mesh's ids (the search's meshes have none).
    const bool ownNodes = costs.processesPerNode <= 1 && !span->dims.empty();
    const double onMesh = costs.pointToPointUs(step.bytesPerRank, span->dims, span->peers);
    return ownNodes ? std::max(onMesh, costs.sendRecvUs(step.bytesPerRank)) : onMesh;
  }
  const bool crossesNodes = std::any_of(step.groups.begin(), step.groups.end(), [&](const std::vector<int64_t>& pair) {
    return !costs.sameNode(pair[0], pair[1]);
  });
  if (crossesNodes) return costs.sendRecvUs(step.bytesPerRank);
  return costs.withinNodeUs(step.bytesPerRank, busiestPeers(step.groups));
}

Box boxAt(const TensorSpec& tensor, const Layout& layout, int64_t position) {
  return localBox(tensor.shape, layout, meshCoord(layout.mesh, position));
}

// Whether the pieces of one box may go to any destination process that wants
// that box: true without partials (every piece is the data), and with partials of
// one reduce type when no mesh dim of more than one rank replicates, so that the
// ranks holding a box are exactly one partial group (the reduction does not care
// which piece is where). With a replicated dim or several types a piece's place
// in its group matters, and rank i sends to rank i.
bool piecesInterchangeable(const Layout& layout) {
  std::optional<ReduceType> type;
  bool replicated = false;
  for (size_t dim = 0; dim < layout.placements.size(); ++dim) {
    const Placement& placement = layout.placements[dim];
    replicated = replicated || (placement.isReplicate() && layout.mesh.shape[dim] > 1);
    if (!placement.isPartial()) continue;
    if (type && *type != placement.reduce) return false;
    type = placement.reduce;
  }
  return !type || !replicated;
}

// Equal mesh shapes and placements: every destination position takes the piece
// of a source position with the same box, one each. Where pieces are
// interchangeable, a destination process that already holds one keeps it and
// the others pair in mesh order, so a mesh whose process ids are permuted moves
// only what changes holder (R on [0,1] -> R on [1,0]: nothing); otherwise, and
// for the rest, position i sends to position i.
Step rankToRank(const Layout& from, const Layout& to, const TensorSpec& tensor, Traffic& traffic) {
  const int64_t size = from.mesh.size();
  std::vector<int64_t> sourceOf(static_cast<size_t>(size), -1);
  std::vector<bool> used(static_cast<size_t>(size), false);
  if (piecesInterchangeable(from)) {
    std::map<int64_t, int64_t> sourcePosition;
    for (int64_t position = 0; position < size; ++position) sourcePosition[processIdAt(from.mesh, position)] = position;
    for (int64_t position = 0; position < size; ++position) {
      auto held = sourcePosition.find(processIdAt(to.mesh, position));
      if (held == sourcePosition.end() || used[static_cast<size_t>(held->second)]) continue;
      if (!(boxAt(tensor, from, held->second) == boxAt(tensor, to, position))) continue;
      sourceOf[static_cast<size_t>(position)] = held->second;
      used[static_cast<size_t>(held->second)] = true;
    }
  }
  // The rest in mesh order: the k-th unserved destination of a box takes the
  // k-th unused source of that box (position i from position i when none kept).
  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, std::vector<int64_t>> unusedByBox;
  auto boxKey = [&](const Layout& layout, int64_t position) {
    Box box = boxAt(tensor, layout, position);
    return std::make_pair(std::move(box.begin), std::move(box.end));
  };
  for (int64_t position = size; position-- > 0;)
    if (!used[static_cast<size_t>(position)]) unusedByBox[boxKey(from, position)].push_back(position);
  Step step;
  for (int64_t position = 0; position < size; ++position) {
    int64_t& source = sourceOf[static_cast<size_t>(position)];
    if (source < 0) {
      std::vector<int64_t>& candidates = unusedByBox[boxKey(to, position)];
      source = candidates.back();
      candidates.pop_back();
    }
    const int64_t sender = processIdAt(from.mesh, source);
    const int64_t destination = processIdAt(to.mesh, position);
    step.groups.push_back({sender, destination});
    traffic.add(sender, destination, boxAt(tensor, from, source).volume() * dtypeSize(tensor.dtype));
  }
  return step;
}

// The least loaded holder of each source piece (by bytes sent so far in the
// step, the first in mesh order among equals), kept ordered as sends are
// added: O(log holders) a pair. A process holds one piece of the source, so
// only its own piece's sends change its load.
class SenderChoice {
 public:
  SenderChoice(const Layout& from, const PieceGrid& grid) : from_(from), grid_(grid) {
    for (int64_t position = 0; position < from.mesh.size(); ++position)
      positionOf_.emplace(processIdAt(from.mesh, position), position);
  }

  // The destination itself when it holds the piece, else the least loaded holder.
  int64_t choose(int64_t piece, int64_t destination) {
    if (auto held = positionOf_.find(destination); held != positionOf_.end() && grid_.pieceAt(held->second) == piece)
      return destination;
    const int64_t least = loadsOf(piece).begin()->second;
    return processIdAt(from_.mesh, grid_.holders(piece)[static_cast<size_t>(least)]);
  }

  void sent(int64_t piece, int64_t sender, int64_t bytes) {
    std::set<std::pair<int64_t, int64_t>>& loads = loadsOf(piece);
    const int64_t position = positionOf_.at(sender);
    const std::span<const int64_t> holders = grid_.holders(piece);
    const int64_t index = std::lower_bound(holders.begin(), holders.end(), position) - holders.begin();
    int64_t& load = loadOf_[sender];
    loads.erase({load, index});
    load += bytes;
    loads.insert({load, index});
  }

 private:
  std::set<std::pair<int64_t, int64_t>>& loadsOf(int64_t piece) {
    auto [found, added] = loads_.try_emplace(piece);
    if (added)
      for (size_t index = 0; index < grid_.holders(piece).size(); ++index)
        found->second.insert({0, static_cast<int64_t>(index)});
    return found->second;
  }

  const Layout& from_;
  const PieceGrid& grid_;
  std::unordered_map<int64_t, int64_t> positionOf_;  // process id -> source mesh position
  std::unordered_map<int64_t, int64_t> loadOf_;      // process id -> bytes sent
  std::unordered_map<int64_t, std::set<std::pair<int64_t, int64_t>>> loads_;  // piece -> (bytes, holder index)
};

// The pairs a move by intersection lists: per destination, one per source
// piece its box meets (PieceGrid), found per block of chunks, never per pair
// of ranks. O(destinations x tensor rank); saturates.
int64_t intersectionPairs(const Layout& to, const PieceGrid& sources, const TensorSpec& tensor) {
  int64_t pairs = 0;
  for (int64_t position = 0; position < to.mesh.size(); ++position)
    if (__builtin_add_overflow(pairs, sources.countMeeting(boxAt(tensor, to, position)), &pairs)) return INT64_MAX;
  return pairs;
}

Step byIntersection(const Layout& from, const Layout& to, const TensorSpec& tensor, const PieceGrid& sources,
                    Traffic& traffic) {
  Step step;
  SenderChoice senders(from, sources);
  for (int64_t position = 0; position < to.mesh.size(); ++position) {
    const int64_t destination = processIdAt(to.mesh, position);
    const Box wanted = boxAt(tensor, to, position);
    sources.forEachMeeting(wanted, [&](int64_t piece) {
      const int64_t bytes = intersect(wanted, sources.box(piece)).volume() * dtypeSize(tensor.dtype);
      const int64_t sender = senders.choose(piece, destination);
      step.groups.push_back({sender, destination});
      traffic.add(sender, destination, bytes);
      if (sender != destination) senders.sent(piece, sender, bytes);
    });
  }
  return step;
}

// A move between meshes in which no process sends to another: every
// destination process is on the source mesh and holds what it needs. Nothing
// moves, so it is no send_recv: when every process already holds exactly its
// new piece it is no step at all (a relabelling, as Paddle's GlobalToSubMesh
// reshard: "no communication"), else a local slice of each one's own piece.
// nullopt when some destination process holds nothing yet.
std::optional<Edge> localMeshChange(const Layout& from, const Layout& to, const TensorSpec& tensor,
                                    const CostModel& costs) {
  std::map<int64_t, int64_t> sourcePosition;
  for (int64_t position = 0; position < from.mesh.size(); ++position)
    sourcePosition[processIdAt(from.mesh, position)] = position;
  Step step;
  step.kind = StepKind::Slice;
  step.groups.emplace_back();
  bool relabel = true;
  for (int64_t position = 0; position < to.mesh.size(); ++position) {
    const int64_t id = processIdAt(to.mesh, position);
    auto held = sourcePosition.find(id);
    if (held == sourcePosition.end()) return std::nullopt;
    const Box wanted = boxAt(tensor, to, position);
    relabel = relabel && wanted == boxAt(tensor, from, held->second);
    step.groups.front().push_back(id);
    step.bytesPerRank = std::max(step.bytesPerRank, wanted.volume() * dtypeSize(tensor.dtype));
  }
  if (relabel) return Edge{to, std::nullopt, 0.0};
  step.estUs = costs.localUs(step.bytesPerRank);
  step.from = from;
  step.to = to;
  return Edge{to, step, step.estUs};
}

}  // namespace

int64_t maxSendRecvPairs(const ProcessMesh& from, const ProcessMesh& to) {
  return std::max(kMaxSendRecvPairs, from.size() + to.size());
}

std::optional<Edge> meshChange(const Layout& from, const Layout& to, const TensorSpec& tensor,
                               const CostModel& costs) {
  const bool rankToRankPossible = from.mesh.shape == to.mesh.shape && from.placements == to.placements;
  if (!rankToRankPossible && (hasPartial(from) || hasPartial(to))) return std::nullopt;
  Traffic traffic;
  Step step;
  if (rankToRankPossible) {
    step = rankToRank(from, to, tensor, traffic);
  } else {
    const PieceGrid sources(tensor.shape, from);
    if (intersectionPairs(to, sources, tensor) > maxSendRecvPairs(from.mesh, to.mesh)) return std::nullopt;
    step = byIntersection(from, to, tensor, sources, traffic);
  }
  if (traffic.sent.empty())
    if (std::optional<Edge> local = localMeshChange(from, to, tensor, costs)) return local;
  step.kind = StepKind::SendRecv;
  step.bytesPerRank = traffic.busiest();
  step.estUs = sendRecvCost(from.mesh, step, costs);
  step.from = from;
  step.to = to;
  return Edge{to, step, step.estUs};
}

std::optional<Edge> permutation(const Layout& from, const Placements& to, const TensorSpec& tensor,
                                const CostModel& costs) {
  if (from.placements == to || from.mesh.size() > kPermutationRanks) return std::nullopt;
  const Layout target{from.mesh, to};
  if (hasPartial(from) || hasPartial(target) || !isRepresentable(to, tensor.rank())) return std::nullopt;
  return meshChange(from, target, tensor, costs);
}

double stepCostUs(const Step& step, const CostModel& costs) {
  if (step.kind == StepKind::SendRecv) return sendRecvCost(step.from.mesh, step, costs);
  const std::vector<int64_t> dims = step.meshDims.empty() ? std::vector<int64_t>{step.meshDim} : step.meshDims;
  if (step.meshDim < 0) return costs.localUs(step.bytesPerRank);  // a slice between meshes
  int64_t groupSize = 1;
  for (int64_t dim : dims) groupSize *= step.from.mesh.shape[static_cast<size_t>(dim)];
  return costs.collectiveUs(step.kind, groupSize, step.bytesPerRank, dims);
}

}  // namespace reshardctl
