#include "lower/lower_program.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/clone/program_clone.h"
#include "ir/rewriter.h"
#include "lower/dist_to_dense.h"
#include "lower/lowered_ops.h"
#include "lower/process_groups.h"
#include "lower/rank_pruning.h"
#include "lower/reshard_functions.h"
#include "passes/pass_runner.h"
#include "reshard/mesh_coords.h"
#include "support/op_names.h"

namespace reshardctl {

std::vector<int64_t> programRanks(const Program& program) {
  std::set<int64_t> ranks;
  // Ops mostly share their neighbour's mesh: its ids are inserted already.
  const std::vector<int64_t>* previous = nullptr;
  walkOps(*program.body(), [&](const Operation* op) {
    if (!op->distAttr() || !op->distAttr()->mesh.idsKnown) return;
    const std::vector<int64_t>& ids = op->distAttr()->mesh.processIds;
    if (previous && *previous == ids) return;
    ranks.insert(ids.begin(), ids.end());
    previous = &ids;
  });
  return {ranks.begin(), ranks.end()};
}

bool checkLowerable(const Program& program, DiagnosticEngine& diagnostics) {
  // One walk: dense (no op_dist_attr), lowered (communication ops), not yet
  // through mix2dist (a shard_tensor), or a reshard Paddle cannot lower (a
  // dynamic dim).
  bool distributed = false, ok = true;
  walkOps(*program.body(), [&](const Operation* op) {
    distributed = distributed || op->distAttr();
    if (!ok) return;
    if (op->name() == kShardTensorOp) {
      // Paddle lowers the program apply_mix2dist_pass leaves
      // (passes/mix_to_dist.h, which the tool's --apply runs), and its
      // VerifyDistBlock refuses a block that still holds one.
      diagnostics.error(op->location(), 1,
                        "the program holds dist_op.shard_tensor: it is the program before Paddle's "
                        "apply_mix2dist_pass, which gives the data or parameter op its layout and removes "
                        "the op; lower takes the dist program after it (--apply runs the pass first)");
      ok = false;
      return;
    }
    if (isLoweredCommunication(op->name())) {
      diagnostics.error(op->location(), 1,
                        fmt::format("the program holds {}, a communication op Paddle's reshard functions emit: it "
                                    "was lowered already",
                                    op->name()));
      ok = false;
      return;
    }
    if (op->name() != kReshardOp) return;
    const Value* input = op->operandValue(0);
    if (!input || !input->type || !input->type->isTensor() || !input->dist) {
      diagnostics.error(sourceLocation(*op), 1, "this dist_op.reshard's input is not a distributed tensor");
      ok = false;
    } else if (!input->dist->mesh.idsKnown || !op->result(0)->dist || !op->result(0)->dist->mesh.idsKnown) {
      diagnostics.error(sourceLocation(*op), 1,
                        "this reshard's meshes are known only by their shape; lowering needs their process ids "
                        "(which ranks send, receive and gather)");
      ok = false;
    } else if (const auto dynamic = std::find(input->type->dims.begin(), input->type->dims.end(), -1);
               dynamic != input->type->dims.end()) {
      diagnostics.error(sourceLocation(*op), 1,
                        fmt::format("this reshard moves a tensor whose dim {} is dynamic (-1 in [{}]); Paddle's reshard "
                                    "functions need static shapes (\"dynamic shape is not supported by pir-auto "
                                    "parallel yet\")",
                                    dynamic - input->type->dims.begin(), fmt::join(input->type->dims, ", ")));
      ok = false;
    }
  });
  if (!distributed) {
    diagnostics.error(0, 1, "the program has no op_dist_attr: it is already lowered (dense) or not distributed");
    return false;
  }
  return ok;
}

namespace {

std::vector<Operation*> reshardOps(const Program& program) {
  std::vector<Operation*> reshards;
  walkOps(*program.body(), [&](Operation* op) {
    if (op->name() == kReshardOp) reshards.push_back(op);
  });
  return reshards;
}

// `location`: the reshard's sourceLocation in the whole program (a reshard
// the partition pass inserted has none of its own: its first user's).
bool lowerReshard(Operation* reshard, ProcessGroups& groups, const LowerOptions& options, Rewriter& rewriter,
                  KeptDistAttrs& kept, size_t location, DiagnosticEngine& diagnostics) {
  const int64_t rank = options.rank;
  Value* input = reshard->operandValue(0);
  Value* result = reshard->result(0);
  LoweredOps ops(rewriter, *reshard, kept, location);
  std::vector<LoweringWarning> warnings;
  ReshardFunctions functions(ops, groups, rank, warnings);
  functions.usePlans(options.plan);
  functions.spellAs(options.release);
  try {
    Value* lowered = functions.reshard(*input->dist, *result->dist, input, Target{result->type, *result->dist});
    for (const LoweringWarning& warning : warnings)
      diagnostics.warning("lowering", location, 1, fmt::format("on rank {}: {}", rank, warning.message));
    rewriter.replaceAllUsesWith(result, lowered);
    rewriter.eraseOp(reshard);
    return true;
  } catch (const PaddleRefusal& refusal) {
    diagnostics.error(location, 1, fmt::format("cannot lower this reshard on rank {}: {}", rank, refusal.what()));
    return false;
  } catch (const InputError& error) {
    // A type the functions built that the type text cannot hold (a partial
    // on a mesh dim the new mesh lacks): this reshard is refused, not the run.
    diagnostics.error(location, 1, fmt::format("cannot lower this reshard on rank {}: {}", rank, error.message));
    return false;
  }
}

LowerSummary lowerStages(Program& program, const LowerOptions& options, DiagnosticEngine& diagnostics) {
  LowerSummary summary;
  ProcessGroups groups;
  // Each stage through runPass: under RESHARDCTL_VERIFY_EACH (every test) the
  // graph and the verifier check what it left.
  summary.ok = runPass("reshard_op_pass", program, [&](Program& p) {
    const std::vector<Operation*> reshards = reshardOps(p);
    Rewriter rewriter(p);
    KeptDistAttrs kept(p);
    bool ok = true;
    if (!options.slice) {
      for (Operation* reshard : reshards)
        ok = lowerReshard(reshard, groups, options, rewriter, kept, sourceLocation(*reshard), diagnostics) && ok;
      summary.reshards = reshards.size();
      return ok;
    }
    // The dist program's reshards in order: the slice's own (the same order,
    // the skipped ones left out) and the skipped ones, each alone.
    ReshardScratch scratch(options.slice->dist());
    size_t next = 0;
    for (Operation* reshard : reshardOps(options.slice->dist())) {
      const size_t location = sourceLocation(*reshard);
      if (options.slice->skipped(*reshard)) {
        Operation* alone = scratch.copyOf(*reshard);  // before rewriter(): it may renew the scratch program
        ok = lowerReshard(alone, groups, options, scratch.rewriter(), scratch.kept(), location, diagnostics) && ok;
      } else {
        ok = lowerReshard(reshards[next++], groups, options, rewriter, kept, location, diagnostics) && ok;
      }
      ++summary.reshards;
    }
    return ok;
  });
  summary.rings = groups.rings();
  summary.groupMembers = groups.membersAsked();
  if (!summary.ok || options.stage == LowerStage::Reshard) return summary;
  const PruneResult pruned = runPass("remove_other_rank_op_pass", program, [&](Program& p) {
    return removeOtherRankOps(p, options.rank, diagnostics);
  });
  summary.erased = pruned.erased;
  summary.ok = pruned.ok;
  if (!summary.ok || options.stage == LowerStage::Pruned) return summary;
  runPass("dist_to_dense", program, [&](Program& p) { return distToDense(p, options.rank, groups); });
  return summary;
}

}  // namespace

LowerSummary lowerProgram(Program& program, const LowerOptions& options, DiagnosticEngine& diagnostics) {
  try {
    return lowerStages(program, options, diagnostics);
  } catch (const InputError& error) {
    // A local type the later stages read back from text and cannot hold:
    // the program is refused for this rank, not the run (every caller:
    // lower --rank, lower --all-ranks, schedule, validate --lowered).
    diagnostics.error(fmt::format("cannot lower the program for rank {}: {}", options.rank, error.message));
    LowerSummary refused;
    refused.ok = false;
    return refused;
  }
}

LoweredRank lowerRankClone(const Program& dist, LowerOptions options, DiagnosticEngine& diagnostics) {
  LoweredRank lowered;
  if (options.stage == LowerStage::Reshard || dist.usesDebugIds()) {
    lowered.program = cloneProgram(dist);
    lowered.summary = lowerProgram(*lowered.program, options, diagnostics);
    return lowered;
  }
  const RankSlice slice(dist, options.rank);
  lowered.program = cloneProgram(dist, [&slice](const Operation& op) { return slice.skipped(op); });
  options.slice = &slice;
  lowered.summary = lowerProgram(*lowered.program, options, diagnostics);
  return lowered;
}

}  // namespace reshardctl
