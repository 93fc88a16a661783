// `reshardctl validate`'s engine: run the whole program serially on global
// tensors and on every rank on local pieces, and compare, op by op in program
// order, each result assembled from its ranks (by its declared dist type)
// with the serial value.
//
// Serial: dist_op.reshard and dist_op.shard_tensor are identities; program
// inputs get seeded values (seeded_inputs.h).
// Ranks: every rank of an op's mesh runs the op's kernel on its local pieces,
// as it would after Paddle's passes; ops whose attributes carry global shapes
// build their results in the rank's local shape (kernel.h); dist_op.reshard
// runs through the reshard executor (reshard_runner.h); inputs are cut from
// the serial values by their dist type (layout_pieces.h).
// Ops without a kernel are not simulated: values that depend on them are not
// compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exec/execution_backend.h"
#include "interp/tensor.h"
#include "interp/budget/work_budget.h"
#include "ir/ir.h"
#include "reshard/cost_model.h"

namespace reshardctl {

class ProcessGroup;

struct ValidateOptions {
  uint64_t seed = 1;
  int64_t dynamicDim = 4;              // the size of a -1 dim in an input's shape
  std::optional<double> rtol, atol;    // replace the per-dtype tolerances (tolerance.h)
  bool all = false;                    // go on after a divergence
  int64_t maxLoopIterations = 10000;   // a pd_op.while running longer is not simulated
  WorkBudget budget;                   // --max-work, --max-memory (work_budget.h)
  CostModel costs;                     // for planning the reshards
  // How diagnostics name a value ("%9"); the tool numbers them as the input does.
  std::function<std::string(const Value*)> nameOf;
  // Under mpirun with several processes: the ranks, their kernels and their
  // pieces are shared out over them (share/rank_share.h); every process must
  // validate alike. budget.processes says how many there are.
  ProcessGroup* processes = nullptr;
};

// One op whose distributed result is not the serial one.
struct Divergence {
  const Operation* op = nullptr;
  std::string kind;     // replicas | serial | shape | missing | compute | reshard | branch | layout
  std::string message;  // the whole diagnostic text, op and value named
  std::optional<size_t> result;
  std::string value;          // the result's name, when one is concerned
  std::vector<int64_t> ranks;  // the ranks concerned, when known
  double maxAbsDiff = 0;
  double maxRelErr = 0;
  Shape index;  // where the largest relative error is, for `serial`
};

// Ops without a kernel (or whose attributes the kernel cannot read), by name
// in order of first appearance.
struct NotSimulated {
  std::string op;
  size_t count = 0;
  std::string reason;  // empty: no kernel; else why the kernel could not run it
};

struct ValidationOutcome {
  size_t totalOps = 0;
  size_t matchedOps = 0;       // run and compared, every result as the serial program's
  size_t divergedOps = 0;
  size_t notSimulatedOps = 0;
  size_t dependentOps = 0;     // not run: fed by a value an op not simulated made
  size_t unexecutedOps = 0;    // in a branch not taken, or after the first divergence
  size_t ranks = 0;
  size_t processes = 1;        // the MPI processes the ranks were shared out over
  // By process: the bytes of the rank pieces it made (its share of the
  // ranks' memory and work) and of the pieces it received from the others.
  std::vector<double> pieceBytes, receivedBytes;
  bool stoppedEarly = false;   // stopped at the first divergence (no --all)
  std::vector<NotSimulated> notSimulated;
  std::vector<Divergence> divergences;
};

// Throws BackendError when the backend fails (the run cannot go on), and a
// usage Failure when the program exceeds options.budget (up front, or at the
// op run that passes it).
ValidationOutcome validateProgram(const Program& program, ExecutionBackend& backend, const ValidateOptions& options);

}  // namespace reshardctl
