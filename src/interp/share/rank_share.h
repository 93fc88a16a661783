// validate under mpirun -np P: the simulated ranks shared out over the
// processes, and with them the memory of their pieces. Process p owns a
// contiguous block of the world's ranks (world indices [p·R/P, (p+1)·R/P)):
// it runs their kernels and holds their pieces; of the other ranks' pieces it
// holds only the shape (a stub: no elements), learnt after each op by one
// allgather of shapes, so that every process knows which rank holds what and
// the walk goes alike everywhere. Elements travel through MPI only where a
// consumer on another process reads them:
// - a result's check runs on one process (in turn, op by op): the others send
//   it their pieces one at a time, in the order the check reads them, so it
//   holds the serial value and one received piece at a time; the verdict is
//   shared with every process (one allgather of its text);
// - a reshard's plan runs shared (exec/multiprocess/shared_execution.h): before
//   each step a process receives the pieces its ranks' groups read;
// - a kernel failure or a branch condition found on some rank: every process
//   says its first, and all take the one at the smallest rank (the one a
//   single process, going rank by rank, meets).
// Each process still runs the serial program whole: one global copy of each
// live value per process (the reference every check compares with).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "interp/result_check.h"
#include "interp/tensor.h"
#include "interp/validation.h"
#include "interp/value_store.h"

namespace reshardctl {

class ProcessGroup;

// A piece (or none) as doubles, appended to `out`; read back by unpackPiece
// from `in` at `at` (advanced), which throws ExecutionError on a malformed
// stream. Lists nest at most kMaxListDepth deep. With `elements` false only
// the shape travels (the piece read back is a stub).
void packPiece(const std::optional<Tensor>& piece, std::vector<double>& out, bool elements = true);
std::optional<Tensor> unpackPiece(const std::vector<double>& in, size_t& at);

// `piece` without its elements: what a process holds of another's rank.
Tensor stubOf(const Tensor& piece);

// A divergence as text and back (every field but the op, which the reader
// names); decodeDivergence throws ExecutionError on malformed text.
std::string encodeDivergence(const Divergence& divergence);
Divergence decodeDivergence(const Operation* op, std::string_view text);

class RankShare {
 public:
  RankShare(ProcessGroup& group, size_t worldSize);
  size_t processes() const { return processes_; }
  size_t ownerOf(size_t rankIndex) const { return rankIndex * processes_ / worldSize_; }
  bool owns(size_t rankIndex) const { return ownerOf(rankIndex) == self_; }

  // Every process calls it after running its ranks of `op`, with the failure
  // it met (if any); all return the same: of the failures found, the one at
  // the smallest rank.
  std::optional<Divergence> agree(const Operation& op, std::optional<Divergence> mine);

  // After every process ran its ranks of `ranks`: the other processes' result
  // pieces of `results`, as stubs.
  void exchangeShapes(const std::vector<size_t>& ranks, const std::vector<ValueState*>& results);

  // Runs `verify` on one process, which reads the ranks' pieces of `state`
  // through the RankPieces it is given, in the order of `order` (world
  // indices, each at most once; it may stop early); every process returns
  // its verdict.
  std::optional<Divergence> check(const Operation& op, const std::vector<size_t>& order, const ValueState& state,
                                  const std::function<std::optional<Divergence>(const RankPieces&)>& verify);

  // The bytes of piece elements this process received from others for checks.
  uint64_t receivedBytes() const { return receivedBytes_; }
  // Every process's `figure`, in process order.
  std::vector<double> gatherFigure(double figure);

 private:
  ProcessGroup& group_;
  size_t processes_;
  size_t self_;
  size_t worldSize_;
  size_t checks_ = 0;  // which process checks next
  uint64_t receivedBytes_ = 0;
};

}  // namespace reshardctl
