// `reshardctl lower`: the program one rank runs (docs/lowering.md). Paddle's
// passes after the partition pass, in order (pir_pass.py, engine.py
// _parallel_pir): reshard_op_pass (each dist_op.reshard becomes the ops of its
// reshard function, reshard_functions.h), remove_other_rank_op_pass
// (rank_pruning.h), apply_dist2dense_pass + remove_unuseful_comm_op_pass
// (dist_to_dense.h). Work is linear in ops (each reshard emits a bounded
// number of ops; N-D meshes add at most a few per mesh dim).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "lower/lowered_ops.h"
#include "lower/rank_slice.h"
#include "reshard/cost_model.h"

namespace reshardctl {

// Where to stop: the dist program after reshard_op_pass, after pruning, or
// the dense program Paddle logs as `IR after DistToDense Pass`.
enum class LowerStage { Reshard, Pruned, Dense };

struct LowerOptions {
  int64_t rank = 0;
  LowerStage stage = LowerStage::Dense;
  // --lowering=plan: each reshard as the min-cost plan under these costs
  // (reshard/planner.h) in the same op vocabulary; null: Paddle's functions.
  const CostModel* plan = nullptr;
  // --paddle: whose spelling of the collectives (lowered_ops.h).
  PaddleRelease release = PaddleRelease::V3_0;
  // Set where the program is `slice`'s clone of its dist program (the ops
  // it skips left out, rank_slice.h): the skipped reshards are lowered alone,
  // in order among the others. Not for LowerStage::Reshard, which prints
  // every reshard's ops.
  const RankSlice* slice = nullptr;
};

struct LowerSummary {
  size_t reshards = 0;  // dist_op.reshard ops lowered
  size_t erased = 0;    // ops of other ranks removed
  bool ok = true;       // false: something was refused (diagnosed at its line)
  // The process groups the lowering made: ring id -> ranks in group order
  // (ProcessGroups::rings); the same on every rank of one program.
  std::map<int64_t, std::vector<int64_t>> rings;
  // The members of the process groups the lowering asked for (made or found,
  // ProcessGroups::membersAsked): with the ops, the work of lowering one rank.
  size_t groupMembers = 0;
};

// The ranks of the program: the sorted union of its op meshes' process ids.
std::vector<int64_t> programRanks(const Program& program);

// Whether the program has anything to lower: false (diagnosed at the op)
// for a program without op_dist_attr (already dense), one holding a
// communication op a reshard function emits in either release's spelling
// (already lowered), one holding dist_op.shard_tensor (before Paddle's
// mix2dist pass), or a reshard of a tensor with a dynamic dim.
bool checkLowerable(const Program& program, DiagnosticEngine& diagnostics);

LowerSummary lowerProgram(Program& program, const LowerOptions& options, DiagnosticEngine& diagnostics);

// The program `options.rank` runs, lowered from a clone of `dist` (which
// stays as it is): of its part only (rank_slice.h) at any stage but
// LowerStage::Reshard in a dump without debug ids (each op a pass makes
// takes the next id, so the skipped reshards' ops would number the rest),
// else of the whole program. The same program and diagnostics either way.
struct LoweredRank {
  std::unique_ptr<Program> program;
  LowerSummary summary;
};
LoweredRank lowerRankClone(const Program& dist, LowerOptions options, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
