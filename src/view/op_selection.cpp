#include "view/op_selection.h"

#include <deque>

#include <fmt/format.h>

namespace reshardctl {

namespace {

// The value printed as `name`, searched in one walk (block arguments included).
const Value* findValue(ViewContext& view, std::string_view name) {
  auto matches = [&](const Value* value) { return view.labels.name(value) == name; };
  auto inArguments = [&](const Block& block) -> const Value* {
    for (const Value* argument : block.arguments())
      if (matches(argument)) return argument;
    return nullptr;
  };
  if (const Value* found = inArguments(*view.program.body())) return found;
  for (const Operation* op : view.ops.ops()) {
    for (size_t i = 0; i < op->numResults(); ++i)
      if (matches(op->result(i))) return op->result(i);
    for (const Block* region : op->regions())
      if (const Value* found = inArguments(*region)) return found;
  }
  return nullptr;
}

// The op a value comes from: its defining op, or for a block argument the
// region op that owns the block (none for the program's own arguments).
const Operation* sourceOp(const Value* value) {
  if (!value) return nullptr;
  if (value->definingOp) return value->definingOp;
  return value->ownerBlock ? value->ownerBlock->parentOp() : nullptr;
}

template <typename Visit>
void forEachUser(const Value* value, Visit&& visit) {
  for (const Operand* use = value->firstUse; use; use = use->nextUse()) visit(use->owner());
}

// The ops one dataflow step away from `op` (see selectNeighbourhood).
template <typename Visit>
void forEachNeighbour(const Operation& op, Visit&& visit) {
  for (size_t i = 0; i < op.numOperands(); ++i)
    if (const Operation* producer = sourceOp(op.operandValue(i))) visit(producer);
  for (size_t i = 0; i < op.numResults(); ++i) forEachUser(op.result(i), visit);
  for (const Block* region : op.regions()) {
    if (!region->empty()) visit(region->back());
    for (const Value* argument : region->arguments()) forEachUser(argument, visit);
  }
  const Block* parent = op.parentBlock();
  if (parent && parent->parentOp() && parent->back() == &op) visit(parent->parentOp());
}

}  // namespace

OpSelection OpSelection::all(const OpIndex& ops) {
  OpSelection selection;
  selection.shownCount_ = ops.size();
  return selection;
}

std::optional<OpSelection> selectNeighbourhood(ViewContext& view, std::string_view valueName, int depth,
                                               std::string* error) {
  const Value* focus = findValue(view, valueName);
  if (!focus) {
    *error = fmt::format("--focus: no value named {} in the program", valueName);
    return std::nullopt;
  }
  OpSelection selection;
  selection.all_ = false;
  selection.focus_ = std::string(valueName);
  selection.chosen_.assign(view.ops.size(), false);
  selection.shown_.assign(view.ops.size(), false);

  std::deque<std::pair<const Operation*, int>> queue;
  auto reach = [&](const Operation* op, int distance) {
    const size_t index = view.ops.indexOf(*op);
    if (selection.chosen_[index]) return;
    selection.chosen_[index] = true;
    queue.emplace_back(op, distance);
  };
  if (focus->definingOp) {
    reach(focus->definingOp, 0);
  } else {
    if (const Operation* regionOp = sourceOp(focus)) reach(regionOp, 0);
    forEachUser(focus, [&](const Operation* user) { reach(user, 0); });
  }
  while (!queue.empty()) {
    auto [op, distance] = queue.front();
    queue.pop_front();
    if (distance < depth) forEachNeighbour(*op, [&](const Operation* next) { reach(next, distance + 1); });
  }

  // Chosen ops and the region ops around them; each walk up stops at an op
  // already shown, so this is linear in the chosen ops.
  for (size_t index = 0; index < view.ops.size(); ++index) {
    if (!selection.chosen_[index]) continue;
    for (const Operation* op = &view.ops.op(index); op;) {
      const size_t at = view.ops.indexOf(*op);
      if (selection.shown_[at]) break;
      selection.shown_[at] = true;
      ++selection.shownCount_;
      op = op->parentBlock() ? op->parentBlock()->parentOp() : nullptr;
    }
  }
  return selection;
}

}  // namespace reshardctl
