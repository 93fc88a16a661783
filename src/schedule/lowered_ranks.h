// A dist program as its ranks run it: lowered for every rank of its meshes
// (lower/lower_program.h: reshard_op_pass, remove_other_rank_op_pass,
// apply_dist2dense_pass), each rank from a clone of the one dist program
// (ir/clone/program_clone.h) handed on before the next is made (one rank's
// program held at a time), with the
// process groups the lowering made as the communicators (ring id -> ranks in
// group order, the order peer indexes count in). What `schedule FILE`
// checks when FILE is one dist program: the same seam (collectRank and
// resolveSchedule, buildSchedule's halves) as per-rank dumps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "reshard/cost_model.h"
#include "schedule/schedule.h"

namespace reshardctl {

// The bound on the work of lowering every rank: ranks x (ops + the members of
// the process groups one rank's lowering asks for). Each rank makes every
// group in the same order (process_groups.h): a group of each mesh a
// collective runs on, one of each pair a send_recv sends between, so a
// reshard's lowering grows with its meshes' ranks and its plan's pairs on
// every rank. 8 ranks of a 2M-op program, or 2,048 ranks each asking for
// groups of 8,192 members in all; above it the run is refused.
inline constexpr size_t kMaxLoweredOps = size_t{1} << 24;

// The refusal (a message) where lowering `ranks` ranks of `dist`, each
// costing its ops + `groupMembers` (LowerSummary::groupMembers of one rank;
// nullopt before any rank is lowered: the ops alone), exceeds kMaxLoweredOps;
// nullopt where it fits. `what`: whose bound, for the message ("schedule
// lowers": "... more than schedule lowers (16777216)").
std::optional<std::string> loweringWorkRefusal(std::string_view what, const Program& dist, size_t ranks,
                                               std::optional<size_t> groupMembers);

// Takes each rank's dense program as it is made, in rank order; the program
// is dropped when it returns.
using LoweredRankSink = std::function<void(int64_t rank, const Program& program)>;

struct LoweredRanks {
  std::vector<int64_t> ranks;  // the program's ranks, sorted
  GroupTable groups;           // every ring the lowering made
  bool ok = false;             // false: diagnosed in `diagnostics`
};

// Frees a rank's program once it was handed on, and gives the pages it held
// back to the system: glibc keeps freed heap memory below its top, so each
// rank's clone left ~35 MB behind (RSS before the second rank's clone: 88 MB,
// the dist program 53 MB), and the ranks after crept upwards (schedule
// --apply on the varied 100k-op bench program on 8 ranks: peak 128 MB ->
// 118 MB).
void dropLoweredRank(std::unique_ptr<Program>& program);

// Whether `program` is one to lower rather than one rank's: it has
// op_dist_attr and no communication op yet.
bool isDistProgram(const Program& program);

// `dist` (null: it failed to load, diagnosed already) is cloned for each
// rank and the clone lowered; `dist` itself stays as it is. Lowering's
// warnings and refusals go to `diagnostics`. Work: ranks x (clone +
// lowering), each linear in the ops. `plan`: lower each reshard as the
// min-cost plan under these costs (lower_program.h's LowerOptions::plan);
// null: Paddle's functions.
LoweredRanks lowerEveryRank(const Program* dist, const LoweredRankSink& sink, DiagnosticEngine& diagnostics,
                            const CostModel* plan = nullptr);

}  // namespace reshardctl
