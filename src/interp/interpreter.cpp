#include "interp/interpreter.h"

#include <algorithm>
#include <new>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "exec/piece.h"
#include "interp/execution_sites.h"
#include "interp/kernel_table.h"
#include "interp/layout_pieces.h"
#include "interp/seeded_inputs.h"
#include "reshard/planner.h"
#include "support/failure.h"
#include "support/op_names.h"

namespace reshardctl {

namespace {

bool isTensorValue(const Value* value) { return value && value->type && value->type->isTensor(); }

// A result whose serial shape disagrees with its type: the kernel does not
// model this form of the op (the type is what Paddle inferred).
std::string shapeDisagreement(const Operation& op, const std::vector<std::optional<Tensor>>& results) {
  for (size_t i = 0; i < results.size(); ++i) {
    const Value* value = op.result(i);
    if (!results[i] || results[i]->isList || !isTensorValue(value)) continue;
    const Shape& dims = value->type->dims;
    const Shape& got = results[i]->shape;
    bool fits = dims.size() == got.size();
    for (size_t d = 0; fits && d < dims.size(); ++d) fits = dims[d] < 0 || dims[d] == got[d];
    if (!fits)
      return fmt::format("result {} comes out {} where its type says {}", i, shapeText(got), shapeText(dims));
  }
  return {};
}

// The bytes of a tensor's elements, by its shape: a stub (rank_share.h)
// counts as the piece it stands for, so that every process of a shared run
// counts alike.
uint64_t tensorBytes(const Tensor& t) {
  uint64_t n = t.isList ? 0 : static_cast<uint64_t>(numelOf(t.shape)) * sizeof(double);
  for (const Tensor& item : t.items) n += tensorBytes(item);
  return n;
}

// The bytes a value's state holds: its serial tensor and every rank's piece.
uint64_t heldBytes(const ValueState& state) {
  uint64_t total = tensorBytes(state.serial);
  for (const std::optional<Tensor>& piece : state.ranks)
    if (piece) total += tensorBytes(*piece);
  return total;
}

}  // namespace

Interpreter::Interpreter(const Program& program, ExecutionBackend& backend, const ValidateOptions& options,
                         const LocalRunHooks* local)
    : program_(program),
      options_(options),
      local_(local),
      world_(program),
      values_(program.valueCount(), world_.size()),
      reshards_(backend, options.costs),
      checkContext_{world_, layouts_, options_} {
  if (options.processes != nullptr && !local) {
    share_ = std::make_unique<RankShare>(*options.processes, world_.size());
    reshards_.shareOver(*options.processes, [this](int64_t id) {
      const std::optional<size_t> r = world_.indexOf(id);
      return static_cast<int>(r ? share_->ownerOf(*r) : 0);
    });
  }
}

ValidationOutcome Interpreter::run() {
  outcome_.ranks = world_.size();
  outcome_.processes = share_ ? share_->processes() : 1;
  walkOps(*program_.body(), [&](const Operation*) { ++outcome_.totalOps; });
  planReleases(*program_.body());
  if (!local_) weighReshards();
  runProgramInputs(*program_.body());
  runBlock(*program_.body());
  std::array<size_t, 5> counts = topCounts_;
  for (const auto& [op, status] : nestedStatus_) ++counts[static_cast<size_t>(status)];
  outcome_.matchedOps = counts[static_cast<size_t>(Status::Matched)];
  outcome_.dependentOps = counts[static_cast<size_t>(Status::Dependent)];
  outcome_.notSimulatedOps = counts[static_cast<size_t>(Status::NotSimulated)];
  outcome_.divergedOps = counts[static_cast<size_t>(Status::Diverged)];
  outcome_.unexecutedOps = outcome_.totalOps - outcome_.matchedOps - outcome_.dependentOps -
                           outcome_.notSimulatedOps - outcome_.divergedOps;
  outcome_.stoppedEarly = stopped_;
  outcome_.pieceBytes = {static_cast<double>(pieceBytes_)};
  outcome_.receivedBytes = {0};
  if (share_) {
    outcome_.pieceBytes = share_->gatherFigure(static_cast<double>(pieceBytes_));
    outcome_.receivedBytes =
        share_->gatherFigure(static_cast<double>(share_->receivedBytes() + reshards_.receivedBytes()));
  }
  return outcome_;
}

// The program's own block arguments (`^kw:%kwarg_x`) are inputs too.
void Interpreter::runProgramInputs(const Block& body) {
  size_t index = 0;
  for (size_t k = 0; k < body.arguments().size(); ++k) {
    const Value* arg = body.arguments()[k];
    ValueState& state = values_.at(arg);
    if (!isTensorValue(arg)) continue;
    const std::string key = arg->argName.empty() ? fmt::format("#arg{}", index++) : std::string(arg->argName);
    if (local_ && local_->argument)
      if (std::optional<Tensor> given = local_->argument(k)) {
        state.serial = std::move(*given);
        state.known = true;
        continue;
      }
    try {
      state.serial = seededTensor(completeShape(arg->type->dims, -1, options_.dynamicDim),
                                  parseDType(arg->type->dtype).value_or(DType::F32), options_.seed, key);
      state.known = true;
      if (local_ && local_->seededArgument) local_->seededArgument(k, state.serial);
      if (arg->dist == nullptr) {
        for (size_t r = 0; r < world_.size(); ++r)
          keepPiece(state, r, ownsRank(r) ? state.serial : stubOf(state.serial));
        continue;
      }
      layOut(state, layouts_.of(*arg->dist));
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is the run's failure, not this input's (runCli reports it)
    } catch (const std::exception&) {  // too large, or a layout no placement can express
      state = ValueState{};          // its users are not checked
    }
  }
}

void Interpreter::runBlock(const Block& block) {
  const bool top = &block == program_.body();
  size_t position = 0;
  for (const Operation* op : block) {
    if (stopped_) return;
    runOp(*op);
    if (top) releaseAfter(position++);
  }
}

void Interpreter::runOp(const Operation& op) {
  meter_.charge(op);  // every run, so a loop that repeats past the budget stops here
  const Status enclosing = current_;  // a region op's status goes on after its blocks
  current_ = Status::None;
  dispatch(op);
  recordStatus(op, current_);
  current_ = enclosing;
}

void Interpreter::dispatch(const Operation& op) {
  const std::string_view opName = op.name();
  if (opName == kYieldOp) return setStatus(Status::Matched);  // the enclosing op reads its operands
  if (opName == kStackCreateOp || opName == kTuplePushOp || opName == kTuplePopOp) return runStackOp(op);
  if (!operandsKnown(op)) {
    // A rank's communication op still meets its peers, carrying nothing, so
    // that they learn the value is unknown instead of waiting for it forever.
    if (local_ && local_->communicate) local_->communicate(op, std::vector<const Tensor*>(op.numOperands(), nullptr));
    setStatus(Status::Dependent);
    return markUnknown(op);
  }
  if (opName == kIfOp) return runIf(op);
  if (opName == kWhileOp) return runWhile(op);
  if (opName == kReshardOp) return runReshard(op);
  if (local_ && runCommunication(op)) return;
  const Kernel kernel = findKernel(opName);
  if (kernel == nullptr) {
    notSimulated(op, "");
    return markUnknown(op);
  }
  runKernel(op, kernel);
}

std::vector<const Tensor*> Interpreter::serialOperands(const Operation& op) {
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    const Value* v = op.operandValue(i);
    inputs.push_back(v ? &values_.at(v).serial : nullptr);
  }
  return inputs;
}

void Interpreter::runKernel(const Operation& op, Kernel kernel) {
  const OpAttributes attrs(op.attributes());
  const SerialSite site(op, values_, options_.seed, options_.dynamicDim, inputCounter_, local_);
  KernelContext serialContext(op, attrs, serialOperands(op), site);
  try {
    kernel(serialContext);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never "not simulated"
  } catch (const std::exception& e) {  // KernelError, or anything else the kernel cannot do
    notSimulated(op, e.what());
    return markUnknown(op);
  }
  std::vector<std::optional<Tensor>> serial = std::move(serialContext.outputs());
  if (std::string problem = shapeDisagreement(op, serial); !problem.empty()) {
    notSimulated(op, problem);
    return markUnknown(op);
  }
  if (local_) return finishLocal(op, serialOperands(op), std::move(serial));
  markUnknown(op);  // clears what an earlier loop iteration left
  const std::vector<size_t> ranks = executingRanks(op);
  const bool ranOnRanks = runOnRanks(op, kernel, attrs, serial, ranks);
  for (size_t i = 0; i < serial.size(); ++i) {
    ValueState& state = values_.at(op.result(i));
    state.known = serial[i].has_value();
    if (serial[i]) state.serial = std::move(*serial[i]);
  }
  if (ranOnRanks) checkResults(op, ranks);
  else if (options_.all) resync(op, ranks);
}

bool Interpreter::runOnRanks(const Operation& op, Kernel kernel, const OpAttributes& attrs,
                             const std::vector<std::optional<Tensor>>& serial, const std::vector<size_t>& ranks) {
  std::optional<Divergence> failed;
  for (size_t r : ranks)
    if (!share_ || share_->owns(r))
      if ((failed = runOnRank(op, kernel, attrs, serial, r))) break;
  if (share_) failed = share_->agree(op, std::move(failed));
  if (failed) {
    diverge(std::move(*failed));
    return false;
  }
  if (share_) {
    std::vector<ValueState*> results;
    for (size_t i = 0; i < op.numResults(); ++i) results.push_back(&values_.at(op.result(i)));
    share_->exchangeShapes(ranks, results);
  }
  return true;
}

std::optional<Divergence> Interpreter::runOnRank(const Operation& op, Kernel kernel, const OpAttributes& attrs,
                                                 const std::vector<std::optional<Tensor>>& serial, size_t r) {
  const int64_t id = world_.processId(r);
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    const Value* v = op.operandValue(i);
    if (v == nullptr) {
      inputs.push_back(nullptr);
      continue;
    }
    const std::optional<Tensor>& piece = values_.at(v).ranks[r];
    if (!piece) {
      Divergence d;
      d.op = &op;
      d.kind = "missing";
      d.ranks = {id};
      d.message = fmt::format("{} operand {} ({}): rank {} runs the op but holds no piece of it", op.name(), i,
                              name(v), id);
      return d;
    }
    inputs.push_back(&*piece);
  }
  const RankSite site(op, id, serial, values_, layouts_, options_.dynamicDim);
  KernelContext context(op, attrs, std::move(inputs), site);
  try {
    kernel(context);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a divergence
  } catch (const std::exception& e) {  // KernelError, or a layout the rank cannot read
    Divergence d;
    d.op = &op;
    d.kind = "compute";
    d.ranks = {id};
    d.message = fmt::format("{}: rank {} cannot run it on its pieces: {}", op.name(), id, e.what());
    return d;
  }
  for (size_t i = 0; i < op.numResults(); ++i) {
    std::optional<Tensor>& piece = context.outputs()[i];
    if (piece) pieceBytes_ += tensorBytes(*piece);
    values_.at(op.result(i)).ranks[r] = std::move(piece);
  }
  return std::nullopt;
}

// A program run on its own: the op's results are its values, seen by the hook.
void Interpreter::finishLocal(const Operation& op, const std::vector<const Tensor*>& operands, OpResults results) {
  if (local_->observe) local_->observe(op, operands, results);
  for (size_t i = 0; i < results.size() && i < op.numResults(); ++i) {
    ValueState& state = values_.at(op.result(i));
    state.known = results[i].has_value();
    state.serial = results[i] ? std::move(*results[i]) : Tensor{};
  }
  setStatus(Status::Matched);
}

bool Interpreter::runCommunication(const Operation& op) {
  if (!local_->communicate) return false;
  const std::vector<const Tensor*> operands = serialOperands(op);
  std::optional<OpResults> results = local_->communicate(op, operands);
  if (!results) return false;
  finishLocal(op, operands, std::move(*results));
  return true;
}

void Interpreter::weighReshards() {
  const std::string memory = fmt::format("--max-memory={}", options_.budget.maxMemoryBytes);
  const std::string work = fmt::format("--max-work={}", options_.budget.maxWork);
  const FootprintLimits limits{options_.budget.maxMemoryBytes, memory, options_.budget.maxWork, work};
  // Beside the program's values, as checkBudgetUpFront counts them (interp/budget/work_budget.h).
  const uint64_t values = programCost(program_, options_.dynamicDim, options_.maxLoopIterations)
                              .bytesPerProcess(outcome_.processes);
  const auto refusal = reshards_.weigh(program_, options_.dynamicDim, outcome_.processes, values, limits);
  if (refusal)
    throw Failure(FailureKind::BadInput,
                  fmt::format("validate refuses the program: the {} of {}: {} (raise it to run it anyway, validate "
                              "a smaller copy with --shrink)",
                              refusal->op->name(), name(refusal->op->operandValue(0)), refusal->problem));
}

void Interpreter::runReshard(const Operation& op) {
  if (local_) return finishLocal(op, serialOperands(op), OpResults{values_.at(op.operandValue(0)).serial});
  const Value* input = op.operandValue(0);
  const Value* output = op.result(0);
  ValueState& from = values_.at(input);
  ValueState& to = values_.at(output);
  to = ValueState{};
  to.ranks.resize(world_.size());
  to.known = true;
  to.serial = from.serial;  // serially a reshard is the identity
  std::vector<size_t> ranks;
  try {
    if (!input->dist || !output->dist) throw LayoutError("a reshard needs dist types on both sides");
    ranks = world_.indicesOf(output->dist->mesh);
    std::map<int64_t, const Tensor*> pieces;  // under mpirun, of this process's ranks (the plan runs shared)
    for (size_t r = 0; r < world_.size(); ++r)
      if (from.ranks[r] && ownsRank(r)) pieces[world_.processId(r)] = &*from.ranks[r];
    for (auto& [id, piece] : reshards_.move(from.serial.shape, *input->dist, *output->dist, pieces,
                                                         from.serial.dtype == DType::Bool))
      if (std::optional<size_t> r = world_.indexOf(id)) keepPiece(to, *r, std::move(piece));
    if (share_) layOutStubs(to, layouts_.of(*output->dist));
  } catch (const BackendError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a divergence
  } catch (const std::exception& e) {  // LayoutError, PlanError, ExecutionError
    Divergence d;
    d.op = &op;
    d.kind = "reshard";
    d.message = fmt::format("{} of {}: the reshard cannot run: {}", op.name(), name(input), e.what());
    diverge(std::move(d));
    if (options_.all) resync(op, ranks);
    return;
  }
  checkResults(op, ranks);
}

std::optional<bool> Interpreter::condition(const Operation& op, const Value* cond) {
  const ValueState& state = values_.at(cond);
  if (state.serial.data.empty()) {
    notSimulated(op, "its condition holds no element");
    markUnknown(op);
    return std::nullopt;
  }
  const bool serial = state.serial.data.front() != 0.0;
  std::optional<Divergence> found;
  for (size_t r = 0; r < world_.size() && !found; ++r) {
    if (!state.ranks[r] || !ownsRank(r)) continue;
    const int64_t id = world_.processId(r);
    const std::vector<double>& piece = state.ranks[r]->data;
    if (!piece.empty() && (piece.front() != 0.0) == serial) continue;
    Divergence d;
    d.op = &op;
    d.kind = "branch";
    d.ranks = {id};
    d.message = piece.empty()
                    ? fmt::format("{}: rank {} holds no element of the condition {}; a condition must be replicated",
                                  op.name(), id, name(cond))
                    : fmt::format("{}: the condition {} is {} on rank {} but {} in the serial program; a condition "
                                  "must be replicated",
                                  op.name(), name(cond), !serial, id, serial);
    found = std::move(d);
  }
  if (share_) found = share_->agree(op, std::move(found));
  if (found) {
    diverge(std::move(*found));
    if (stopped_) return std::nullopt;
  }
  return serial;
}

void Interpreter::copyValue(const Value* from, const Value* to) {
  if (from == nullptr) {
    values_.at(to) = ValueState{};
    return;
  }
  const ValueState copy = values_.at(from);
  values_.at(to) = copy;
}

void Interpreter::runIf(const Operation& op) {
  const std::optional<bool> taken = condition(op, op.operandValue(0));
  if (!taken) return;
  const std::vector<Block*>& regions = op.regions();
  const size_t branch = *taken ? 0 : 1;
  if (branch < regions.size()) {
    runBlock(*regions[branch]);
    if (stopped_) return;
    const Operation* yield = regions[branch]->back();
    for (size_t i = 0; i < op.numResults(); ++i)
      copyValue(yield && yield->name() == kYieldOp && i < yield->numOperands() ? yield->operandValue(i) : nullptr,
                op.result(i));
  }
  setStatus(Status::Matched);
}

void Interpreter::runWhile(const Operation& op) {
  if (op.regions().empty()) return notSimulated(op, "it has no body");
  const Block& body = *op.regions().front();
  const std::vector<Value*>& args = body.arguments();
  std::vector<ValueState> current;
  for (size_t k = 1; k < op.numOperands(); ++k) current.push_back(values_.at(op.operandValue(k)));
  const Value* cond = op.operandValue(0);
  for (int64_t iteration = 0;; ++iteration) {
    const std::optional<bool> more = condition(op, cond);
    if (!more) return;
    if (!*more) break;
    if (iteration >= options_.maxLoopIterations) {
      notSimulated(op, fmt::format("it runs more than {} iterations", options_.maxLoopIterations));
      return markUnknown(op);
    }
    for (size_t k = 0; k < args.size() && k < current.size(); ++k) values_.at(args[k]) = current[k];
    runBlock(body);
    if (stopped_) return;
    const Operation* yield = body.back();
    if (!yield || yield->name() != kYieldOp || yield->numOperands() != current.size() + 1) {
      notSimulated(op, "its body does not end in cf.yield(condition, values...)");
      return markUnknown(op);
    }
    cond = yield->operandValue(0);
    for (size_t k = 0; k < current.size(); ++k) {
      const Value* next = yield->operandValue(k + 1);
      current[k] = next ? values_.at(next) : ValueState{};
    }
    if (!cond || !values_.at(cond).known) {
      setStatus(Status::Dependent);
      return markUnknown(op);
    }
  }
  for (size_t k = 0; k < op.numResults() && k < current.size(); ++k) values_.at(op.result(k)) = current[k];
  setStatus(Status::Matched);
}

// A stack moves values, serial and every rank's pieces alike: a pop hands
// back the states its push saw (checked when they were made), so the
// backward's ops are checked on the forward's values (StackCreateOp,
// TuplePushOp, TuplePopOp in paddle/pir/src/dialect/control_flow/ir/cf_op.cc).
void Interpreter::runStackOp(const Operation& op) {
  if (op.name() == kStackCreateOp) {
    for (size_t i = 0; i < op.numResults(); ++i) {
      stackOf_[op.result(i)] = stacks_.size();
      values_.at(op.result(i)).known = true;  // a handle: its users are not held back
    }
    stacks_.emplace_back();
    return setStatus(Status::Matched);
  }
  const Value* handle = op.numOperands() > 0 ? op.operandValue(0) : nullptr;
  const auto found = handle ? stackOf_.find(handle) : stackOf_.end();
  if (found == stackOf_.end()) {
    notSimulated(op, "its inlet or outlet comes from no cf.stack_create run before it");
    return markUnknown(op);
  }
  std::vector<std::vector<ValueState>>& stack = stacks_[found->second];
  if (op.name() == kTuplePushOp) {
    std::vector<ValueState>& tuple = stack.emplace_back();
    for (size_t i = 1; i < op.numOperands(); ++i)
      tuple.push_back(op.operandValue(i) ? values_.at(op.operandValue(i)) : ValueState{});
    for (const ValueState& state : tuple) stackBytes_ += heldBytes(state);
    const uint64_t limit = options_.budget.maxMemoryBytes;
    if (limit != 0 && stackBytes_ > limit) {  // the tuple stays, unknown, so later pops still pair up
      for (ValueState& state : tuple) stackBytes_ -= heldBytes(state), state = ValueState{};
      return notSimulated(op, fmt::format("its stacks would hold more than --max-memory ({} bytes)", limit));
    }
    return setStatus(Status::Matched);
  }
  if (stack.empty() || stack.back().size() != op.numResults()) {
    notSimulated(op, stack.empty() ? "it pops an empty stack" : "it pops a tuple of another size than was pushed");
    return markUnknown(op);
  }
  bool known = true;
  for (size_t i = 0; i < op.numResults(); ++i) {
    stackBytes_ -= heldBytes(stack.back()[i]);
    known = known && stack.back()[i].known;
    values_.at(op.result(i)) = std::move(stack.back()[i]);
  }
  stack.pop_back();
  setStatus(known ? Status::Matched : Status::Dependent);
}

std::vector<size_t> Interpreter::executingRanks(const Operation& op) {
  if (op.distAttr()) return world_.indicesOf(op.distAttr()->mesh);
  std::vector<size_t> ranks;
  for (size_t i = 0; i < op.numResults(); ++i)
    if (const Value* v = op.result(i); v->dist)
      for (size_t r : world_.indicesOf(v->dist->mesh)) ranks.push_back(r);
  if (!ranks.empty()) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
  }
  // No mesh named: the ranks that hold every operand (all of them, for none).
  for (size_t r = 0; r < world_.size(); ++r) {
    bool holds = true;
    for (size_t i = 0; holds && i < op.numOperands(); ++i)
      if (const Value* v = op.operandValue(i)) holds = values_.at(v).ranks[r].has_value();
    if (holds) ranks.push_back(r);
  }
  return ranks;
}

bool Interpreter::operandsKnown(const Operation& op) {
  for (size_t i = 0; i < op.numOperands(); ++i)
    if (const Value* v = op.operandValue(i); v && !values_.at(v).known) return false;
  return true;
}

void Interpreter::checkResults(const Operation& op, const std::vector<size_t>& ranks) {
  bool matched = true;
  for (size_t i = 0; i < op.numResults(); ++i) {
    const Value* value = op.result(i);
    const ValueState& state = values_.at(value);
    if (!state.known || state.serial.isList || !isTensorValue(value)) continue;
    if (std::optional<Divergence> d = checkResult(op, i, ranks)) {
      matched = false;
      diverge(std::move(*d));
      if (stopped_) return;
    }
  }
  if (matched) setStatus(Status::Matched);
  else if (options_.all) resync(op, ranks);
}

void Interpreter::resync(const Operation& op, const std::vector<size_t>& ranks) {
  for (size_t i = 0; i < op.numResults(); ++i) {
    const Value* value = op.result(i);
    ValueState& state = values_.at(value);
    if (!state.known) continue;
    std::fill(state.ranks.begin(), state.ranks.end(), std::nullopt);
    if (value->dist == nullptr || state.serial.isList) {
      for (size_t r : ranks) keepPiece(state, r, ownsRank(r) ? state.serial : stubOf(state.serial));
      continue;
    }
    try {
      layOut(state, layouts_.of(*value->dist));
    } catch (const LayoutError&) {
      state = ValueState{};  // no layout to lay it out by: later uses are not checked
    }
  }
}

std::optional<Divergence> Interpreter::checkResult(const Operation& op, size_t result,
                                                   const std::vector<size_t>& ranks) {
  const ValueState& state = values_.at(op.result(result));
  if (!share_) return reshardctl::checkResult(op, result, state, ranks, checkContext_);
  return share_->check(op, checkOrder(op, result, ranks, checkContext_), state, [&](const RankPieces& pieces) {
    return reshardctl::checkResult(op, result, state, ranks, checkContext_, pieces);
  });
}

void Interpreter::keepPiece(ValueState& state, size_t r, Tensor piece) {
  if (ownsRank(r)) pieceBytes_ += tensorBytes(piece);
  state.ranks[r] = std::move(piece);
}

// The serial value cut into its ranks' pieces (the others' as stubs).
void Interpreter::layOut(ValueState& state, const Layout& layout) {
  for (int64_t position = 0; position < layout.mesh.size(); ++position)
    if (const std::optional<size_t> r = world_.indexOf(processIdAt(layout.mesh, position)); r && ownsRank(*r))
      keepPiece(state, *r, pieceOf(state.serial, layout, meshCoord(layout.mesh, position)));
  layOutStubs(state, layout);
}

// The stubs of the other processes' ranks of a value laid out as `layout`.
void Interpreter::layOutStubs(ValueState& state, const Layout& layout) {
  for (int64_t position = 0; position < layout.mesh.size(); ++position) {
    const std::optional<size_t> r = world_.indexOf(processIdAt(layout.mesh, position));
    if (!r || ownsRank(*r)) continue;
    const MeshCoord coord = meshCoord(layout.mesh, position);
    Tensor stub;
    const Box box = pieceBox(state.serial.shape, layout, coord);
    for (size_t d = 0; d < box.rank(); ++d) stub.shape.push_back(box.extent(d));
    stub.dtype = state.serial.dtype;
    state.ranks[*r] = std::move(stub);
  }
}

void Interpreter::recordStatus(const Operation& op, Status status) {
  if (status == Status::None) return;
  if (op.parentBlock() == program_.body()) {
    ++topCounts_[static_cast<size_t>(status)];
    return;
  }
  auto [entry, added] = nestedStatus_.try_emplace(&op, status);
  if (!added) entry->second = std::max(entry->second, status);
}

void Interpreter::notSimulated(const Operation& op, std::string reason) {
  setStatus(Status::NotSimulated);
  if (op.parentBlock() != program_.body()) {  // an op in a loop body is listed once
    auto found = nestedStatus_.find(&op);
    if (found != nestedStatus_.end() && found->second == Status::NotSimulated) return;
  }
  std::string key = fmt::format("{}\n{}", op.name(), reason);
  auto [entry, added] = notSimulatedIndex_.try_emplace(std::move(key), outcome_.notSimulated.size());
  if (added) outcome_.notSimulated.push_back({std::string(op.name()), 0, std::move(reason)});
  ++outcome_.notSimulated[entry->second].count;
}

void Interpreter::markUnknown(const Operation& op) {
  for (size_t i = 0; i < op.numResults(); ++i) values_.at(op.result(i)) = ValueState{};
}

void Interpreter::diverge(Divergence divergence) {
  outcome_.divergences.push_back(std::move(divergence));
  setStatus(Status::Diverged);
  if (!options_.all) stopped_ = true;
}

// A top-level value is released after the last top-level op that uses it
// (itself, or through an op in its regions); values of nested blocks stay.
// One forward walk: a later use overwrites an earlier one.
void Interpreter::planReleases(const Block& body) {
  constexpr uint32_t kNested = UINT32_MAX;
  std::vector<uint32_t> last(program_.valueCount(), kNested);
  std::vector<const Value*> topValues;
  for (const Value* arg : body.arguments()) {
    last[arg->id] = 0;
    topValues.push_back(arg);
  }
  uint32_t position = 0;
  auto markUses = [&](const Operation* op) {
    for (size_t i = 0; i < op->numOperands(); ++i)
      if (const Value* v = op->operandValue(i); v && last[v->id] != kNested) last[v->id] = position;
  };
  for (const Operation* op : body) {
    for (size_t r = 0; r < op->numResults(); ++r) {
      last[op->result(r)->id] = position;
      topValues.push_back(op->result(r));
    }
    markUses(op);
    for (const Block* region : op->regions()) walkOps(*region, markUses);
    ++position;
  }
  releaseStart_.assign(position + 1, 0);
  for (const Value* v : topValues) ++releaseStart_[last[v->id] + 1];
  for (size_t i = 1; i < releaseStart_.size(); ++i) releaseStart_[i] += releaseStart_[i - 1];
  releaseValues_.assign(topValues.size(), nullptr);
  std::vector<uint32_t> fill(releaseStart_.begin(), releaseStart_.end() - 1);
  for (const Value* v : topValues) releaseValues_[fill[last[v->id]]++] = v;
}

void Interpreter::releaseAfter(size_t position) {
  if (position + 1 >= releaseStart_.size()) return;
  for (uint32_t i = releaseStart_[position]; i < releaseStart_[position + 1]; ++i) values_.release(releaseValues_[i]);
}

std::string Interpreter::name(const Value* value) const {
  return options_.nameOf ? options_.nameOf(value) : std::string();
}

ValidationOutcome runLocal(const Program& program, ExecutionBackend& backend, const ValidateOptions& options,
                           const LocalRunHooks& hooks) {
  return Interpreter(program, backend, options, &hooks).run();
}

ValidationOutcome validateProgram(const Program& program, ExecutionBackend& backend, const ValidateOptions& options) {
  checkBudgetUpFront(program, options.budget, options.dynamicDim, options.maxLoopIterations);
  return Interpreter(program, backend, options).run();
}

}  // namespace reshardctl
