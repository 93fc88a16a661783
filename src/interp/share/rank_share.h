// validate under mpirun -np P: the simulated ranks shared out over the
// processes. Process p runs the kernels of the ranks whose world index r has
// r % P == p; after each op every process receives the others' pieces of its
// results (one allgather), so each then holds every rank's pieces as a single
// process does, and what follows (the checks, the reshards, the conditions)
// runs alike on every process and agrees without more messages. What is
// shared out is the ranks' kernel work; each process still holds every piece.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "interp/tensor.h"
#include "interp/validation.h"
#include "interp/value_store.h"

namespace reshardctl {

class ProcessGroup;

// A piece (or none) as doubles, appended to `out`; read back by unpackPiece
// from `in` at `at` (advanced), which throws ExecutionError on a malformed
// stream. Lists nest at most kMaxListDepth deep.
void packPiece(const std::optional<Tensor>& piece, std::vector<double>& out);
std::optional<Tensor> unpackPiece(const std::vector<double>& in, size_t& at);

class RankShare {
 public:
  explicit RankShare(ProcessGroup& group);
  size_t processes() const { return processes_; }
  bool owns(size_t rankIndex) const { return rankIndex % processes_ == self_; }

  // Every process calls it after running its ranks of `op`, with the failure
  // it met (if any); all return the same: of the failures found, the one at
  // the smallest rank (the one a single process, going rank by rank, meets).
  std::optional<Divergence> agree(const Operation& op, std::optional<Divergence> mine);

  // Fills in, on every process, the pieces of `results` that the ranks of
  // `ranks` (world indices) hold on the processes owning them.
  void exchange(const std::vector<size_t>& ranks, const std::vector<ValueState*>& results);

 private:
  ProcessGroup& group_;
  size_t processes_;
  size_t self_;
};

}  // namespace reshardctl
