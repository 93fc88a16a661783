#include "exec/multiprocess/shared_execution.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "exec/cpu_executor.h"
#include "exec/multiprocess/multi_process.h"
#include "exec/multiprocess/process_group.h"
#include "exec/step_program.h"
#include "reshard/mesh_coords.h"

namespace reshardctl {

namespace {

constexpr double kMaxExtent = 9.0e15;  // below 2^53: every whole double up to it is exact

// A whole number in [0, limit] read from `in` at `at`.
int64_t wholeNumber(const std::vector<double>& in, size_t& at, double limit) {
  if (at >= in.size()) throw ExecutionError("pieces from another process end early");
  const double value = in[at++];
  if (!(value >= 0 && value <= limit) || std::floor(value) != value)
    throw ExecutionError(fmt::format("pieces from another process hold {} where a count is due", value));
  return static_cast<int64_t>(value);
}

// For every other process, the pieces of this process's ranks that its ranks
// read in `step`: a collective's group members, a send_recv's sources.
std::vector<std::set<int64_t>> wantedBy(const Step& step, const RankOwner& ownerOf, int self, int processes) {
  std::vector<std::set<int64_t>> wanted(static_cast<size_t>(processes));
  if (isLocalStep(step.kind)) return wanted;  // each rank reads its own piece alone
  for (const std::vector<int64_t>& group : step.groups) {
    if (step.kind == StepKind::SendRecv) {
      if (group.size() == 2 && ownerOf(group[0]) == self && ownerOf(group[1]) != self)
        wanted[static_cast<size_t>(ownerOf(group[1]))].insert(group[0]);
      continue;
    }
    std::set<int> readers;
    for (const int64_t id : group) readers.insert(ownerOf(id));
    for (const int64_t id : group)
      if (ownerOf(id) == self)
        for (const int reader : readers)
          if (reader != self) wanted[static_cast<size_t>(reader)].insert(id);
  }
  return wanted;
}

// The boxes every rank holds before `step`, as the layout gives them: what
// the communication bytes are counted on (as the CPU backend counts them).
std::map<int64_t, Box> boxesBefore(const Step& step, const std::vector<int64_t>& shape) {
  std::map<int64_t, Box> boxes;
  for (int64_t position = 0; position < step.from.mesh.size(); ++position)
    boxes[processIdAt(step.from.mesh, position)] = localBox(shape, step.from, meshCoord(step.from.mesh, position));
  return boxes;
}

// Every process's problem (empty: none) made one: thrown on all alike.
void agreeOnProblem(ProcessGroup& group, const std::string& mine) {
  const std::string first = firstProblem(group.allGather(mine));
  if (!first.empty()) throw ExecutionError(first);
}

}  // namespace

void packPiece(int64_t processId, const Piece& piece, std::vector<double>& out) {
  out.push_back(static_cast<double>(processId));
  out.push_back(static_cast<double>(piece.box.rank()));
  out.insert(out.end(), piece.box.begin.begin(), piece.box.begin.end());
  out.insert(out.end(), piece.box.end.begin(), piece.box.end.end());
  out.push_back(static_cast<double>(piece.values.size()));
  out.insert(out.end(), piece.values.begin(), piece.values.end());
}

std::map<int64_t, Piece> unpackPieces(const std::vector<double>& in) {
  std::map<int64_t, Piece> pieces;
  size_t at = 0;
  while (at < in.size()) {
    const int64_t id = wholeNumber(in, at, kMaxExtent);
    const auto rank = static_cast<size_t>(wholeNumber(in, at, static_cast<double>(in.size() - at)));
    Piece piece;
    for (std::vector<int64_t>* bound : {&piece.box.begin, &piece.box.end}) {
      bound->resize(rank);
      for (int64_t& extent : *bound) extent = wholeNumber(in, at, kMaxExtent);
    }
    const auto count = static_cast<size_t>(wholeNumber(in, at, kMaxExtent));
    if (count > in.size() - at) throw ExecutionError("pieces from another process end early");
    const auto begin = in.begin() + static_cast<std::ptrdiff_t>(at);
    piece.values.assign(begin, begin + static_cast<std::ptrdiff_t>(count));
    at += count;
    pieces[id] = std::move(piece);
  }
  return pieces;
}

ExecutionStats executeShared(const Plan& plan, DistTensor& tensor, ProcessGroup& group, const RankOwner& ownerOf,
                             uint64_t* received) {
  const int self = group.rank();
  const KeptRanks own = [&](int64_t id) { return ownerOf(id) == self; };
  ExecutionStats stats;
  for (const Step& step : plan.steps) {
    stats.bytesMoved += stepCommunicationBytes(step, tensor.shape, tensor.dtype, boxesBefore(step, tensor.shape));
    std::string problem;
    std::vector<std::vector<double>> outgoing(static_cast<size_t>(group.size()));
    const std::vector<std::set<int64_t>> wanted = wantedBy(step, ownerOf, self, group.size());
    for (size_t process = 0; process < wanted.size(); ++process)
      for (const int64_t id : wanted[process])
        if (auto found = tensor.pieces.find(id); found != tensor.pieces.end())
          packPiece(id, found->second, outgoing[process]);
    // A rank without a piece sends none: the step's run says so where it is read.
    for (const std::vector<double>& incoming : group.allToAll(outgoing)) try {
        for (auto& [id, piece] : unpackPieces(incoming)) {
          if (received != nullptr) *received += piece.values.size() * sizeof(double);
          tensor.pieces[id] = std::move(piece);
        }
      } catch (const ExecutionError& e) {
        problem = e.what();
      }
    const auto start = std::chrono::steady_clock::now();
    try {
      if (problem.empty()) executeStep(step, tensor, own);
    } catch (const ExecutionError& e) {
      problem = e.what();
    }
    stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::erase_if(tensor.pieces, [&](const auto& entry) { return !own(entry.first); });
    agreeOnProblem(group, problem);
  }
  tensor.layout = plan.dst;
  return stats;
}

PieceCheck checkSharedPieces(const DistTensor& tensor, const GlobalTensor& global, ProcessGroup& group,
                             const RankOwner& ownerOf) {
  const Layout& layout = tensor.layout;
  const auto partial = [](const Placement& p) { return p.isPartial(); };
  if (std::any_of(layout.placements.begin(), layout.placements.end(), partial)) {
    std::vector<double> mine;
    for (const auto& [id, piece] : tensor.pieces) packPiece(id, piece, mine);
    const std::vector<int> sizes = group.allGather(static_cast<int>(std::min<size_t>(mine.size(), INT_MAX)));
    DistTensor whole = tensor;
    whole.pieces = unpackPieces(group.allGatherValues(mine, std::vector<int64_t>(sizes.begin(), sizes.end())));
    return checkDestinationPieces(whole, global);
  }
  PieceCheck check;
  int64_t problemAt = -1;
  for (int64_t position = 0; position < layout.mesh.size() && problemAt < 0; ++position) {
    const int64_t id = processIdAt(layout.mesh, position);
    if (ownerOf(id) != group.rank()) continue;
    const Box expected = localBox(tensor.shape, layout, meshCoord(layout.mesh, position));
    const auto found = tensor.pieces.find(id);
    if (found == tensor.pieces.end()) {
      check.problem = fmt::format("process {} holds no piece", id);
    } else if (!(found->second.box == expected)) {
      check.problem = fmt::format("process {} holds [{}..{}) instead of [{}..{})", id,
                                  fmt::join(found->second.box.begin, ","), fmt::join(found->second.box.end, ","),
                                  fmt::join(expected.begin, ","), fmt::join(expected.end, ","));
    } else {
      const Piece wanted = extractPiece(global.data, expected);
      for (size_t i = 0; i < wanted.values.size(); ++i)
        check.maxError = std::max(check.maxError, valueDifference(found->second.values[i], wanted.values[i]));
      continue;
    }
    problemAt = position;
  }
  check.maxError = group.max(check.maxError);
  check.problem =
      lowestPositionedProblem(group.allGather(problemAt < 0 ? "" : positionedProblem(problemAt, check.problem)));
  return check;
}

}  // namespace reshardctl
