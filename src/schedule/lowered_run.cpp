#include "schedule/lowered_run.h"

#include <algorithm>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "interp/layout_pieces.h"
#include "interp/local_run.h"
#include "interp/result_check.h"
#include "interp/value_store.h"
#include "interp/budget/work_budget.h"
#include "schedule/rank_rendezvous.h"
#include "support/op_names.h"

namespace reshardctl {

namespace {

bool isTensorValue(const Value* value) { return value && value->type && value->type->isTensor(); }

// A value the lowering makes local, so the ranks' value is not the serial
// one: a reshape's shape (dist_to_dense.h). Its reshape is compared instead.
bool localizedByLowering(const Operation& op) {
  if (op.name() != "pd_op.full_int_array" || op.numResults() != 1) return false;
  for (const Operand* use = op.result(0)->firstUse; use; use = use->nextUse())
    if (use->owner()->name() == "pd_op.reshape") return true;
  return false;
}

// The serial values of the dist program, by value id, and its ops in the
// order they first ran.
struct SerialCapture {
  std::vector<std::optional<Tensor>> values;
  std::vector<const Operation*> order;
  std::unordered_set<const Operation*> seen;
};

// What one rank's lowered program computed, by the input offset of the op.
struct RankCapture {
  std::unordered_map<size_t, OpResults> results;
  std::unordered_map<size_t, std::vector<std::optional<Tensor>>> operands;  // of ops reading a reshard's result
  std::unordered_set<size_t> present;  // the offsets of the ops its program holds
  std::unordered_map<const Operation*, const CommCall*> calls;
  ValidationOutcome outcome;
};

class LoweredValidation {
 public:
  LoweredValidation(const Program& dist, const std::vector<RankInput>& ranks, const GroupTable& groups,
                    ExecutionBackend& backend, const ValidateOptions& options)
      : dist_(dist), ranks_(ranks), backend_(backend), options_(options), schedule_(buildSchedule(ranks, groups)),
        runner_(backend, options.costs), world_(dist), checkContext_{world_, layouts_, options} {
    resolvePeers(groups);
  }

  ValidationOutcome run();

 private:
  void resolvePeers(const GroupTable& groups);
  void runSerial();
  void indexProgram();
  LocalRunHooks rankHooks(size_t index, RankRendezvous& rendezvous);
  std::optional<Tensor> pieceFor(const Value* value, int64_t rank);
  std::optional<OpResults> communicate(size_t index, const Operation& op, const std::vector<const Tensor*>& operands,
                                       RankRendezvous& rendezvous);
  void compare();
  void checkReshardsRead(const Operation& op, const std::vector<size_t>& running);
  // The serial value of `value` and what each rank holds of it (`held`: null when nothing).
  using HeldBy = std::function<const std::optional<Tensor>*(const RankCapture&)>;
  ValueState gathered(const Value* value, const HeldBy& held) const;
  void check(const Operation& op, size_t result, ValueState state, const std::vector<size_t>& running);
  void diverge(Divergence divergence);

  const Program& dist_;
  const std::vector<RankInput>& ranks_;
  ExecutionBackend& backend_;
  const ValidateOptions& options_;
  Schedule schedule_;
  ReshardRunner runner_;
  RankWorld world_;
  LayoutCache layouts_;
  ResultCheckContext checkContext_;
  SerialCapture serial_;
  ValidationOutcome outcome_;
  std::unordered_map<size_t, const Operation*> distAt_;  // the dist program's ops by input offset
  std::unordered_set<size_t> readsReshard_;             // offsets of ops with an operand a reshard made
  std::vector<RankCapture> captures_;
  std::vector<Divergence> problems_;  // found while the ranks ran
  std::unordered_set<const Operation*> divergedOps_;
  std::unordered_set<const Operation*> checkedReshards_;
  bool stopped_ = false;
};

ValidationOutcome LoweredValidation::run() {
  checkBudgetUpFront(dist_, options_.budget, options_.dynamicDim, options_.maxLoopIterations);
  runSerial();
  indexProgram();
  captures_.resize(ranks_.size());
  RankRendezvous rendezvous(schedule_, runner_);
  std::vector<LocalRunHooks> hooks;
  for (size_t i = 0; i < ranks_.size(); ++i) hooks.push_back(rankHooks(i, rendezvous));
  rendezvous.run([&](size_t i) { captures_[i].outcome = runLocal(*ranks_[i].program, backend_, options_, hooks[i]); });
  for (const RendezvousFinding& finding : rendezvous.findings()) {
    Divergence d;
    d.op = finding.call ? finding.call->source : nullptr;
    d.kind = finding.kind;
    d.ranks = {finding.rank};
    d.message = finding.message;
    diverge(std::move(d));
  }
  for (Divergence& problem : problems_) diverge(std::move(problem));
  compare();
  outcome_.ranks = ranks_.size();
  outcome_.stoppedEarly = stopped_;
  outcome_.divergedOps = divergedOps_.size();
  // The ops a rank could not run that the serial program could (an op the
  // lowering made, or a local shape a kernel refuses): once each, on its first rank.
  std::unordered_set<std::string> listed;
  for (const NotSimulated& n : outcome_.notSimulated) listed.insert(n.op);
  for (size_t i = 0; i < captures_.size(); ++i)
    for (const NotSimulated& n : captures_[i].outcome.notSimulated)
      if (listed.insert(n.op).second)
        outcome_.notSimulated.push_back(
            {n.op, n.count, fmt::format("on rank {}{}{}", ranks_[i].rank, n.reason.empty() ? "" : ": ", n.reason)});
  return outcome_;
}

// A point-to-point ring is made as [src, dst] and `peer` indexes that order
// (SameStatusReshardFunction: group.ranks.index(dst)); the schedule's
// communicators are sorted, so the peers are read from the lowering's table.
void LoweredValidation::resolvePeers(const GroupTable& groups) {
  for (RankSchedule& rank : schedule_.ranks)
    for (CommCall& call : rank.calls) {
      auto group = groups.find(call.ring);
      if (!isPointToPoint(call.kind) || group == groups.end()) continue;
      const std::vector<int64_t>& members = group->second;
      call.peer = call.peerIndex >= 0 && static_cast<size_t>(call.peerIndex) < members.size() &&
                          members[static_cast<size_t>(call.peerIndex)] != rank.rank
                      ? members[static_cast<size_t>(call.peerIndex)]
                      : -1;
    }
}

void LoweredValidation::runSerial() {
  serial_.values.resize(dist_.valueCount());
  LocalRunHooks hooks;
  hooks.observe = [this](const Operation& op, const std::vector<const Tensor*>&, const OpResults& results) {
    for (size_t i = 0; i < results.size() && i < op.numResults(); ++i) serial_.values[op.result(i)->id] = results[i];
    if (serial_.seen.insert(&op).second) serial_.order.push_back(&op);
  };
  // The body's block arguments are program inputs too: seeded by the
  // interpreter, kept, so each rank's run takes its piece (rankHooks).
  hooks.argument = nullptr;
  hooks.seededArgument = [this](size_t k, const Tensor& seeded) {
    serial_.values[dist_.body()->arguments()[k]->id] = seeded;
  };
  outcome_ = runLocal(dist_, backend_, options_, hooks);
}

void LoweredValidation::indexProgram() {
  walkOps(*dist_.body(), [&](const Operation* op) {
    if (op->location() == 0) return;
    distAt_[op->location()] = op;
    for (size_t i = 0; i < op->numOperands(); ++i)
      if (const Value* v = op->operandValue(i); v && v->definingOp && v->definingOp->name() == kReshardOp)
        readsReshard_.insert(op->location());
  });
}

std::optional<Tensor> LoweredValidation::pieceFor(const Value* value, int64_t rank) {
  if (value == nullptr || value->id >= serial_.values.size() || !serial_.values[value->id]) return std::nullopt;
  const Tensor& serial = *serial_.values[value->id];
  if (value->dist == nullptr || serial.isList) return serial;
  try {
    const Layout& layout = layouts_.of(*value->dist);
    const std::optional<MeshCoord> coord = layouts_.coordOf(*value->dist, rank);
    if (!coord) return std::nullopt;
    return pieceOf(serial, layout, *coord);
  } catch (const LayoutError&) {
    return std::nullopt;
  }
}

LocalRunHooks LoweredValidation::rankHooks(size_t index, RankRendezvous& rendezvous) {
  RankCapture& capture = captures_[index];
  const int64_t rank = ranks_[index].rank;
  walkOps(*ranks_[index].program->body(), [&](const Operation* op) {
    if (op->location() != 0) capture.present.insert(op->location());
  });
  for (const CommCall& call : schedule_.ranks[index].calls)
    if (call.source) capture.calls[call.source] = &call;
  LocalRunHooks hooks;
  hooks.onRank = true;
  auto distOp = [this](const Operation& op) -> const Operation* {
    auto found = op.location() != 0 ? distAt_.find(op.location()) : distAt_.end();
    return found == distAt_.end() ? nullptr : found->second;
  };
  hooks.programInput = [this, rank, distOp](const Operation& op, size_t i) -> std::optional<Tensor> {
    const Operation* d = distOp(op);
    return d && i < d->numResults() ? pieceFor(d->result(i), rank) : std::nullopt;
  };
  hooks.argument = [this, rank](size_t k) -> std::optional<Tensor> {
    const std::vector<Value*>& args = dist_.body()->arguments();
    return k < args.size() ? pieceFor(args[k], rank) : std::nullopt;
  };
  hooks.operandOffset = [this, rank, distOp](const Operation& op, size_t i) -> std::optional<Shape> {
    const Operation* d = distOp(op);
    const Value* v = d && i < d->numOperands() ? d->operandValue(i) : nullptr;
    if (!v || !v->dist || v->id >= serial_.values.size() || !serial_.values[v->id]) return std::nullopt;
    try {
      const Layout& layout = layouts_.of(*v->dist);
      const std::optional<MeshCoord> coord = layouts_.coordOf(*v->dist, rank);
      if (!coord) return std::nullopt;
      return pieceBox(serial_.values[v->id]->shape, layout, *coord).begin;
    } catch (const LayoutError&) {
      return std::nullopt;
    }
  };
  hooks.communicate = [this, index, &rendezvous](const Operation& op, const std::vector<const Tensor*>& operands) {
    return communicate(index, op, operands, rendezvous);
  };
  hooks.observe = [this, &capture](const Operation& op, const std::vector<const Tensor*>& operands,
                                   const OpResults& results) {
    const size_t at = op.location();
    if (at == 0 || !distAt_.count(at)) return;
    capture.results[at] = results;
    if (!readsReshard_.count(at)) return;
    std::vector<std::optional<Tensor>>& read = capture.operands[at];
    read.clear();
    for (const Tensor* operand : operands) read.push_back(operand ? std::optional<Tensor>(*operand) : std::nullopt);
  };
  return hooks;
}

std::optional<OpResults> LoweredValidation::communicate(size_t index, const Operation& op,
                                                        const std::vector<const Tensor*>& operands,
                                                        RankRendezvous& rendezvous) {
  auto found = captures_[index].calls.find(&op);
  if (found == captures_[index].calls.end()) return std::nullopt;  // not a call, or one schedule could not read
  // An unknown operand (interp: fed by an op not simulated, on this rank
  // only where a kernel fails on its piece) still meets the peers, as
  // "unknown": a send delivers it, a collective's results are then unknown on
  // every member. Left out, its peers would wait for it forever (a hang
  // reported where the rank did arrive).
  const bool unknown = std::find(operands.begin(), operands.end(), nullptr) != operands.end();
  const Tensor* operand = operands.empty() || unknown ? nullptr : operands[0];
  std::optional<Tensor> result = rendezvous.communicate(index, *found->second, operand);
  OpResults results(op.numResults());
  if (!results.empty() && result) {
    const Value* value = op.result(0);
    const bool fits = !isTensorValue(value) || value->type->dims == result->shape ||
                      std::find(value->type->dims.begin(), value->type->dims.end(), -1) != value->type->dims.end();
    if (!fits) {
      Divergence d;
      d.op = &op;
      d.kind = "compute";
      d.ranks = {ranks_[index].rank};
      d.message = fmt::format("{} on rank {} returns {} where its type says {}", op.name(), ranks_[index].rank,
                              shapeText(result->shape), shapeText(value->type->dims));
      problems_.push_back(std::move(d));
      return results;  // unknown from here on this rank
    }
    results[0] = std::move(result);
  }
  return results;
}

void LoweredValidation::compare() {
  size_t position = 0;
  for (; position < serial_.order.size() && !stopped_; ++position) {
    const Operation& op = *serial_.order[position];
    if (op.name() == kReshardOp || op.location() == 0 || localizedByLowering(op)) continue;
    std::vector<size_t> running;
    for (size_t i = 0; i < captures_.size(); ++i)
      if (captures_[i].present.count(op.location()))
        if (std::optional<size_t> w = world_.indexOf(ranks_[i].rank)) running.push_back(*w);
    if (running.empty()) continue;
    checkReshardsRead(op, running);
    for (size_t r = 0; r < op.numResults() && !stopped_; ++r) {
      const Value* value = op.result(r);
      if (!isTensorValue(value) || !serial_.values[value->id] || serial_.values[value->id]->isList) continue;
      check(op, r, gathered(value, [&](const RankCapture& capture) -> const std::optional<Tensor>* {
              auto results = capture.results.find(op.location());
              return results != capture.results.end() && r < results->second.size() ? &results->second[r] : nullptr;
            }), running);
    }
  }
  // The ops the comparison did not reach were run serially, but not compared.
  for (; position < serial_.order.size(); ++position) {
    --outcome_.matchedOps;
    ++outcome_.unexecutedOps;
  }
  outcome_.matchedOps -= std::min(outcome_.matchedOps, divergedOps_.size());
}

// A reshard's result as the ranks hold it: what the op reading it read in its place.
void LoweredValidation::checkReshardsRead(const Operation& op, const std::vector<size_t>& running) {
  if (!readsReshard_.count(op.location())) return;
  for (size_t k = 0; k < op.numOperands() && !stopped_; ++k) {
    const Value* v = op.operandValue(k);
    if (!v || !v->definingOp || v->definingOp->name() != kReshardOp || !checkedReshards_.insert(v->definingOp).second)
      continue;
    if (!isTensorValue(v) || !serial_.values[v->id]) continue;
    check(*v->definingOp, 0, gathered(v, [&](const RankCapture& capture) -> const std::optional<Tensor>* {
            auto read = capture.operands.find(op.location());
            return read != capture.operands.end() && k < read->second.size() ? &read->second[k] : nullptr;
          }), running);
  }
}

ValueState LoweredValidation::gathered(const Value* value, const HeldBy& held) const {
  ValueState state;
  state.known = true;
  state.serial = *serial_.values[value->id];
  state.ranks.resize(world_.size());
  for (size_t i = 0; i < captures_.size(); ++i) {
    const std::optional<size_t> w = world_.indexOf(ranks_[i].rank);
    if (const std::optional<Tensor>* piece = held(captures_[i]); w && piece) state.ranks[*w] = *piece;
  }
  return state;
}

void LoweredValidation::check(const Operation& op, size_t result, ValueState state, const std::vector<size_t>& running) {
  if (std::optional<Divergence> d = checkResult(op, result, state, running, checkContext_)) diverge(std::move(*d));
}

void LoweredValidation::diverge(Divergence divergence) {
  if (stopped_) return;
  if (divergence.op) divergedOps_.insert(divergence.op);
  outcome_.divergences.push_back(std::move(divergence));
  if (!options_.all) stopped_ = true;
}

}  // namespace

ValidationOutcome validateLowered(const Program& dist, const std::vector<RankInput>& ranks, const GroupTable& groups,
                                  ExecutionBackend& backend, const ValidateOptions& options) {
  return LoweredValidation(dist, ranks, groups, backend, options).run();
}

}  // namespace reshardctl
