#include "exec/cpu_executor.h"

#include <algorithm>

#include <fmt/format.h>

#include "reshard/mesh_coords.h"
#include "reshard/reduce_op.h"

namespace reshardctl {

namespace {

// Where each process sits on a mesh.
std::map<int64_t, MeshCoord> coordsById(const ProcessMesh& mesh) {
  std::map<int64_t, MeshCoord> coords;
  for (int64_t position = 0; position < mesh.size(); ++position)
    coords[processIdAt(mesh, position)] = meshCoord(mesh, position);
  return coords;
}

class StepRunner {
 public:
  StepRunner(const Step& step, DistTensor& tensor, const KeptRanks& kept)
      : step_(step), tensor_(tensor), kept_(kept), targets_(coordsById(step.to.mesh)) {}

  void run() {
    switch (step_.kind) {
      case StepKind::AllReduce:
      case StepKind::ReduceScatter: forEachGroup([&](const auto& g) { reduceAndKeep(g); }); break;
      case StepKind::AllGather:
      case StepKind::AllToAll: forEachGroup([&](const auto& g) { exchange(g); }); break;
      case StepKind::Slice: forEachGroup([&](const auto& g) { slice(g); }); break;
      case StepKind::PartialInit: forEachGroup([&](const auto& g) { partialInit(g); }); break;
      case StepKind::Scale: forEachGroup([&](const auto& g) { scale(g); }); break;
      case StepKind::SendRecv: sendRecv(); break;
    }
    tensor_.layout = step_.to;
  }

 private:
  using Group = std::vector<int64_t>;

  bool keeps(int64_t id) const { return !kept_ || kept_(id); }

  template <typename Body>
  void forEachGroup(Body body) {
    for (const Group& group : step_.groups)
      if (std::any_of(group.begin(), group.end(), [&](int64_t id) { return keeps(id); })) body(group);
  }

  Piece& pieceOf(int64_t id) {
    auto found = tensor_.pieces.find(id);
    if (found == tensor_.pieces.end()) throw ExecutionError(fmt::format("process {} holds no piece", id));
    return found->second;
  }

  // The box process `id` holds once the step is done.
  Box targetBox(int64_t id) const {
    auto found = targets_.find(id);
    if (found == targets_.end())
      throw ExecutionError(fmt::format("process {} is not on the step's mesh", id));
    return localBox(tensor_.shape, step_.to, found->second);
  }

  // Elementwise reduction of the group's pieces, which must cover the same box.
  Piece reduceGroup(const Group& group) {
    const Piece& first = pieceOf(group.front());
    Piece result = Piece::filled(first.box, 0.0);
    std::vector<double> values(group.size());
    for (const int64_t id : group)
      if (!(pieceOf(id).box == first.box))
        throw ExecutionError(fmt::format("process {} holds another box than its group", id));
    for (size_t i = 0; i < result.values.size(); ++i) {
      for (size_t member = 0; member < group.size(); ++member) values[member] = pieceOf(group[member]).values[i];
      result.values[i] = reduceValues(*step_.reduce, tensor_.dtype, values);
    }
    return result;
  }

  // all_reduce keeps the whole reduced box, reduce_scatter each member's chunk.
  void reduceAndKeep(const Group& group) {
    const Piece reduced = reduceGroup(group);
    for (const int64_t id : group)
      if (keeps(id)) pieceOf(id) = extractPiece(reduced, targetBox(id));
  }

  // all_gather and all_to_all: every member builds its new box from the parts of
  // the members' pieces that fall in it.
  void exchange(const Group& group) {
    std::vector<Piece> sent;
    for (const int64_t id : group) sent.push_back(pieceOf(id));
    std::vector<const Piece*> sources;
    for (const Piece& piece : sent) sources.push_back(&piece);
    for (const int64_t id : group)
      if (keeps(id)) pieceOf(id) = assemblePiece(targetBox(id), sources, 0.0, true);
  }

  void slice(const Group& group) {
    for (const int64_t id : group)
      if (keeps(id)) pieceOf(id) = extractPiece(pieceOf(id), targetBox(id));
  }

  void partialInit(const Group& group) {
    const ReduceType type = *step_.reduce;
    const double identity = reduceIdentity(type, tensor_.dtype);
    for (size_t member = 0; member < group.size(); ++member) {
      if (!keeps(group[member])) continue;
      Piece& piece = pieceOf(group[member]);
      if (step_.fromTensorDim >= 0) {
        piece = assemblePiece(targetBox(group[member]), {&piece}, identity, false);
      } else if (member > 0 && type != ReduceType::Avg) {
        piece = Piece::filled(piece.box, identity);
      }
    }
  }

  // Each piece times the step's factor, rounded as the element type would.
  void scale(const Group& group) {
    for (const int64_t id : group)
      if (keeps(id))
        for (double& value : pieceOf(id).values) value = roundToDType(value * step_.scale, tensor_.dtype);
  }

  // Every destination assembles its box from the [source, destination] pairs
  // sent to it; the source pieces are read before any is replaced, as a process
  // may be on both meshes.
  // With Step::reduce (reshard/reduce_on_arrival.h) the parts are partial:
  // each destination reduces them where they meet its box, pairwise from the
  // identity, in pair order (source mesh order), instead of placing them.
  void sendRecv() {
    std::map<int64_t, std::vector<const Piece*>> received;
    for (const Group& pair : step_.groups) {
      if (pair.size() != 2) throw ExecutionError("a send_recv group is not a [source, destination] pair");
      if (keeps(pair[1])) received[pair[1]].push_back(&pieceOf(pair[0]));
    }
    std::map<int64_t, Piece> result;
    for (const auto& [id, coord] : targets_) {
      if (!keeps(id)) continue;
      const Box box = localBox(tensor_.shape, step_.to, coord);
      result[id] = step_.reduce ? reduceArrivals(box, received[id]) : assemblePiece(box, received[id], 0.0, true);
    }
    tensor_.pieces = std::move(result);
  }

  Piece reduceArrivals(const Box& box, const std::vector<const Piece*>& parts) const {
    const ReduceType type = *step_.reduce;
    Piece piece = Piece::filled(box, reduceIdentity(type, tensor_.dtype));
    std::vector<double> pair(2);
    for (const Piece* part : parts)
      forEachRow(intersect(part->box, box), [&](const std::vector<int64_t>& start, size_t length) {
        double* into = piece.values.data() + piece.offsetOf(start);
        const double* arriving = part->values.data() + part->offsetOf(start);
        for (size_t i = 0; i < length; ++i) {
          pair = {into[i], arriving[i]};
          into[i] = reduceValues(type, tensor_.dtype, pair);
        }
      });
    return piece;
  }

  const Step& step_;
  DistTensor& tensor_;
  const KeptRanks& kept_;
  std::map<int64_t, MeshCoord> targets_;
};

}  // namespace

void executeStep(const Step& step, DistTensor& tensor, const KeptRanks& kept) { StepRunner(step, tensor, kept).run(); }

void executePlan(const Plan& plan, DistTensor& tensor) {
  for (const Step& step : plan.steps) executeStep(step, tensor);
  tensor.layout = plan.dst;
}

}  // namespace reshardctl
