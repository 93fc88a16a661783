// The engine behind validateProgram (validation.h): walks the program's
// blocks in order, runs each op serially and on its ranks, checks its results,
// and keeps the counts. Control flow: pd_op.if takes the branch its condition
// names, pd_op.while loops while it holds (cf.yield's first operand is the
// next condition, the rest the next loop values: WhileOp in Paddle's
// control_flow_op.cc); every rank must see the serial program's condition.
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "interp/kernel.h"
#include "interp/local_run.h"
#include "interp/reshard_runner.h"
#include "interp/result_check.h"
#include "interp/share/rank_share.h"
#include "interp/validation.h"
#include "interp/value_store.h"

namespace reshardctl {

class Interpreter {
 public:
  // With `local` the program runs on its own (local_run.h): serially only,
  // through its hooks.
  Interpreter(const Program& program, ExecutionBackend& backend, const ValidateOptions& options,
              const LocalRunHooks* local = nullptr);
  ValidationOutcome run();

 private:
  // What became of an op, worst last; an op's status is the worst it reached.
  enum class Status : uint8_t { None, Matched, Dependent, NotSimulated, Diverged };

  void runBlock(const Block& block);
  void runOp(const Operation& op);
  void dispatch(const Operation& op);
  void runKernel(const Operation& op, Kernel kernel);
  void runReshard(const Operation& op);
  // Refuses (a bad-input Failure) a reshard whose plan passes the budget, before anything runs.
  void weighReshards();
  bool runCommunication(const Operation& op);  // false: not a communication op
  void finishLocal(const Operation& op, const std::vector<const Tensor*>& operands, OpResults results);
  std::vector<const Tensor*> serialOperands(const Operation& op);
  void runIf(const Operation& op);
  void runWhile(const Operation& op);
  void runStackOp(const Operation& op);  // cf.stack_create, cf.tuple_push, cf.tuple_pop
  void runProgramInputs(const Block& body);

  // Runs the kernel on every rank of `ranks`; false when a rank cannot run it.
  bool runOnRanks(const Operation& op, Kernel kernel, const OpAttributes& attrs,
                  const std::vector<std::optional<Tensor>>& serial, const std::vector<size_t>& ranks);
  // One rank's run of the kernel; the divergence when it cannot run it.
  std::optional<Divergence> runOnRank(const Operation& op, Kernel kernel, const OpAttributes& attrs,
                                      const std::vector<std::optional<Tensor>>& serial, size_t r);
  std::vector<size_t> executingRanks(const Operation& op);
  bool operandsKnown(const Operation& op);
  void checkResults(const Operation& op, const std::vector<size_t>& ranks);
  std::optional<Divergence> checkResult(const Operation& op, size_t result, const std::vector<size_t>& ranks);
  // Under mpirun: whether this process holds rank r's elements (else a stub).
  bool ownsRank(size_t r) const { return !share_ || share_->owns(r); }
  // Rank r's piece of `state`, counted when this process owns it.
  void keepPiece(ValueState& state, size_t r, Tensor piece);
  void layOut(ValueState& state, const Layout& layout);
  void layOutStubs(ValueState& state, const Layout& layout);
  // The condition of an if/while as every holder sees it; nullopt after a divergence.
  std::optional<bool> condition(const Operation& op, const Value* cond);
  void copyValue(const Value* from, const Value* to);

  void setStatus(Status status) { current_ = std::max(current_, status); }  // of the op being run
  void recordStatus(const Operation& op, Status status);
  void notSimulated(const Operation& op, std::string reason);
  void markUnknown(const Operation& op);
  void diverge(Divergence divergence);
  // --all: after a divergence the ranks go on from the serial values, laid out
  // as declared, so each later report is about its own op.
  void resync(const Operation& op, const std::vector<size_t>& ranks);
  void releaseAfter(size_t position);
  void planReleases(const Block& body);
  std::string name(const Value* value) const;

  const Program& program_;
  const ValidateOptions& options_;
  const LocalRunHooks* local_;
  RankWorld world_;
  std::unique_ptr<RankShare> share_;  // under mpirun with several processes
  uint64_t pieceBytes_ = 0;           // the elements of own ranks' pieces made, in bytes
  ValueStore values_;
  LayoutCache layouts_;
  ReshardRunner reshards_;
  ResultCheckContext checkContext_;
  size_t inputCounter_ = 0;
  bool stopped_ = false;
  ValidationOutcome outcome_;
  WorkMeter meter_{options_.budget, options_.dynamicDim};
  Status current_ = Status::None;
  // Top-level ops run once: their statuses are only counted. Ops in regions
  // may run again (a loop body): kept by op, so each counts once.
  std::array<size_t, 5> topCounts_{};
  std::unordered_map<const Operation*, Status> nestedStatus_;
  std::unordered_map<std::string, size_t> notSimulatedIndex_;
  // cf.stack_create's stacks: each stack, inlet and outlet value → its stack;
  // a stack holds the states of each tuple pushed (copies: the pushed values
  // live on), together at most --max-memory bytes (stackBytes_).
  std::unordered_map<const Value*, size_t> stackOf_;
  std::vector<std::vector<std::vector<ValueState>>> stacks_;
  uint64_t stackBytes_ = 0;
  // The top-level values to release after top-level op i:
  // releaseValues_[releaseStart_[i] .. releaseStart_[i + 1]).
  std::vector<uint32_t> releaseStart_;
  std::vector<const Value*> releaseValues_;
};

}  // namespace reshardctl
