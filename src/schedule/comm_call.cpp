#include "schedule/comm_call.h"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

#include "interp/op_attributes.h"
#include "interp/tensor.h"
#include "ir/dtype.h"
#include "reshard/local_box.h"
#include "report/diagnostic_formats.h"
#include "interp/budget/loop_trip_count.h"
#include "support/op_names.h"

namespace reshardctl {

namespace {

// One row per communication op Paddle prints (comm_call.h names their
// definitions); `reduce` is the reduction the name fixes, if any.
struct CommOpRow {
  std::string_view name;
  CommKind kind;
  std::optional<ReduceType> reduce;
};

constexpr std::array kCommOps = {
    CommOpRow{"pd_op.all_reduce", CommKind::AllReduce, std::nullopt},
    CommOpRow{"pd_op.c_allreduce_sum", CommKind::AllReduce, ReduceType::Sum},
    CommOpRow{"pd_op.c_allreduce_max", CommKind::AllReduce, ReduceType::Max},
    CommOpRow{"pd_op.c_allreduce_min", CommKind::AllReduce, ReduceType::Min},
    CommOpRow{"pd_op.c_allreduce_prod", CommKind::AllReduce, ReduceType::Product},
    CommOpRow{"pd_op.c_allreduce_avg", CommKind::AllReduce, ReduceType::Avg},
    CommOpRow{"pd_op.all_gather", CommKind::AllGather, std::nullopt},
    CommOpRow{"pd_op.c_allgather", CommKind::AllGather, std::nullopt},
    CommOpRow{"pd_op.reduce_scatter", CommKind::ReduceScatter, ReduceType::Sum},
    CommOpRow{"pd_op.c_reducescatter", CommKind::ReduceScatter, ReduceType::Sum},
    CommOpRow{"pd_op.broadcast", CommKind::Broadcast, std::nullopt},
    CommOpRow{"pd_op.c_broadcast", CommKind::Broadcast, std::nullopt},
    CommOpRow{"pd_op.reduce", CommKind::Reduce, std::nullopt},
    CommOpRow{"pd_op.c_reduce_sum", CommKind::Reduce, ReduceType::Sum},
    CommOpRow{"pd_op.c_reduce_max", CommKind::Reduce, ReduceType::Max},
    CommOpRow{"pd_op.c_reduce_min", CommKind::Reduce, ReduceType::Min},
    CommOpRow{"pd_op.c_reduce_prod", CommKind::Reduce, ReduceType::Product},
    CommOpRow{"pd_op.all_to_all", CommKind::AllToAll, std::nullopt},
    CommOpRow{"pd_op.alltoall", CommKind::AllToAll, std::nullopt},
    CommOpRow{"pd_op.barrier", CommKind::Barrier, std::nullopt},
    CommOpRow{"pd_op.send_v2", CommKind::Send, std::nullopt},
    CommOpRow{"pd_op.p_send", CommKind::Send, std::nullopt},
    CommOpRow{"pd_op.recv_v2", CommKind::Recv, std::nullopt},
    CommOpRow{"pd_op.p_recv", CommKind::Recv, std::nullopt},
};

// The row of `opName`, its in-place form (a trailing '_') included.
const CommOpRow* commOpRow(std::string_view opName) {
  if (opName.size() > 1 && opName.back() == '_') opName.remove_suffix(1);
  for (const CommOpRow& row : kCommOps)
    if (row.name == opName) return &row;
  return nullptr;
}

// The branch a pd_op.if takes when its condition is a constant every rank
// computes alike (a pd_op.full: `value:(Float)1` takes the first region),
// else nullopt: the condition is data, and may differ across ranks.
std::optional<size_t> staticBranch(const Operation& op) {
  if (op.numOperands() == 0 || op.regions().size() != 2 || op.operandValue(0) == nullptr) return std::nullopt;
  const Operation* condition = op.operandValue(0)->definingOp;
  if (condition == nullptr || condition->name() != kFullOp) return std::nullopt;
  try {
    const OpAttributes attributes(condition->attributes());
    if (!attributes.has("value")) return std::nullopt;
    return attributes.number("value", 0) != 0 ? 0 : 1;
  } catch (const KernelError&) {
    return std::nullopt;
  }
}

// The tensor a call moves: what it sends (operand 0), or what a recv makes.
const Type* movedType(const Operation& op, CommKind kind) {
  if (kind == CommKind::Recv) return op.numResults() > 0 ? op.result(0)->type : nullptr;
  return op.numOperands() > 0 && op.operandValue(0) != nullptr ? op.operandValue(0)->type : nullptr;
}

// The product of the dims, -1 when one is dynamic or the product overflows.
int64_t knownElementCount(const std::vector<int64_t>& dims) {
  if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) return -1;
  const int64_t count = elementCount(dims);
  return count == std::numeric_limits<int64_t>::max() ? -1 : count;
}

void readTensor(const Operation& op, const OpAttributes& attributes, CommCall& call) {
  const Type* type = movedType(op, call.kind);
  if (type != nullptr && type->isTensor()) {
    call.count = knownElementCount(type->dims);
    if (const auto dtype = parseDType(type->dtype)) call.dtype = std::string(dtypeName(*dtype));
  }
  if (call.kind != CommKind::Recv) return;
  // recv_v2's out_shape and dtype say the same where the result type is not a tensor.
  if (call.count < 0 && attributes.has("out_shape")) call.count = knownElementCount(attributes.integers("out_shape"));
  if (call.dtype.empty())
    if (const auto dtype = attributes.dtype("dtype")) call.dtype = std::string(dtypeName(*dtype));
}

void readAttributes(const Operation& op, const CommOpRow& row, CommCall& call) {
  const OpAttributes attributes(op.attributes());
  call.ring = attributes.integer("ring_id", 0);
  if (isPointToPoint(row.kind)) call.peerIndex = attributes.integer("peer", 0);
  if (row.reduce) {
    call.reduce = row.reduce;
  } else if (row.kind == CommKind::AllReduce || row.kind == CommKind::Reduce) {
    const int64_t reduce = attributes.integer("reduce_type", 0);
    if (reduce < 0 || reduce > static_cast<int64_t>(ReduceType::All))
      throw KernelError(fmt::format("reduce_type {} is not one of Paddle's ReduceType values (0 to 6)", reduce));
    call.reduce = static_cast<ReduceType>(reduce);
  }
  // The root's attribute is `root` for the broadcasts and `root_id` for the
  // reductions, both defaulting to 0: paddle/phi/ops/yaml/ops.yaml defines
  // `c_broadcast(x, int ring_id=0, int root=0, ...)` and
  // `c_reduce_sum(x, int ring_id, int root_id, ...)`, and the generated
  // paddle/phi/api/include/api.h declares `broadcast(x, int ring_id = 0,
  // int root = 0)` and `reduce(x, int ring_id = 0, int root_id = 0, int
  // reduce_type = 0)`.
  if (row.kind == CommKind::Broadcast) call.root = attributes.integer("root", 0);
  if (row.kind == CommKind::Reduce) call.root = attributes.integer("root_id", 0);
  readTensor(op, attributes, call);
}

}  // namespace

std::string_view commKindName(CommKind kind) {
  switch (kind) {
    case CommKind::AllReduce: return "all_reduce";
    case CommKind::AllGather: return "all_gather";
    case CommKind::ReduceScatter: return "reduce_scatter";
    case CommKind::Broadcast: return "broadcast";
    case CommKind::Reduce: return "reduce";
    case CommKind::AllToAll: return "all_to_all";
    case CommKind::Barrier: return "barrier";
    case CommKind::Send: return "send";
    case CommKind::Recv: return "recv";
  }
  return "?";
}

bool isPointToPoint(CommKind kind) { return kind == CommKind::Send || kind == CommKind::Recv; }

std::optional<CommKind> commKindOf(std::string_view opName) {
  const CommOpRow* row = commOpRow(opName);
  return row ? std::optional<CommKind>(row->kind) : std::nullopt;
}

std::string callSignature(const CommCall& call) {
  std::string text(commKindName(call.kind));
  if (call.reduce) text += fmt::format(" {}", reduceTypeName(*call.reduce));
  if (call.root >= 0) text += fmt::format(" root {}", call.root);
  text += call.count < 0 ? " ?" : fmt::format(" {}", call.count);
  text += call.dtype.empty() ? " x ?" : " x " + call.dtype;
  return text;
}

bool sameCollective(const CommCall& a, const CommCall& b) {
  const bool countsAgree = a.count < 0 || b.count < 0 || a.count == b.count;
  const bool dtypesAgree = a.dtype.empty() || b.dtype.empty() || a.dtype == b.dtype;
  return a.kind == b.kind && a.reduce == b.reduce && a.root == b.root && countsAgree && dtypesAgree;
}

namespace {

class CallCollector {
 public:
  explicit CallCollector(DiagnosticEngine& diagnostics) : diagnostics_(diagnostics) {}

  // The calls of `block` in print order; `unknown`: inside control flow whose
  // path is not statically known. A pd_op.if with a constant condition
  // contributes only its taken branch; a pd_op.while of a static trip count
  // contributes its body once per trip; any other pd_op.while's body is unknown (how
  // often it runs is data).
  void collect(const Block& block, bool unknown) {
    for (const Operation* op : block) {
      if (const CommOpRow* row = commOpRow(op->name())) add(*op, *row, unknown);
      if (op->name() == kWhileOp && !unknown && expand(*op)) continue;
      const std::optional<size_t> taken = op->name() == kIfOp ? staticBranch(*op) : std::nullopt;
      const bool branches = op->name() == kIfOp || op->name() == kWhileOp;
      for (size_t r = 0; r < op->regions().size(); ++r)
        if (!taken || *taken == r) collect(*op->regions()[r], unknown || (branches && !taken));
    }
  }

  std::vector<CommCall> calls;

 private:
  // A while whose trip count every rank knows (loop_trip_count.h): its
  // body's calls once per trip, while the program's budget of op visits in
  // expansions lasts; false leaves it to be listed unchecked.
  bool expand(const Operation& loop) {
    const std::optional<int64_t> trips = staticTripCount(loop, kMaxStaticTrips);
    if (!trips || *trips > kMaxStaticTrips) return false;
    size_t bodyOps = 0;
    walkOps(*loop.regions()[0], [&](const Operation*) { ++bodyOps; });
    const size_t visits = bodyOps * static_cast<size_t>(*trips);
    if (visits > expansionBudget_) return false;
    expansionBudget_ -= visits;
    for (int64_t trip = 0; trip < *trips; ++trip) collect(*loop.regions()[0], false);
    return true;
  }

  size_t expansionBudget_ = kMaxExpandedOpVisits;
  void add(const Operation& op, const CommOpRow& row, bool unknown) {
    CommCall call;
    call.kind = row.kind;
    call.op = std::string(op.name());
    call.location = op.location();
    call.source = &op;
    call.inControlFlow = unknown;
    if (op.distAttr() != nullptr && op.distAttr()->mesh.idsKnown) call.meshRanks = op.distAttr()->mesh.processIds;
    try {
      readAttributes(op, row, call);
    } catch (const KernelError& error) {
      diagnostics_.error(op.location(), 1, fmt::format("{}: {}", op.name(), error.what()));
      return;
    }
    if (call.inControlFlow)
      diagnostics_.warning(kControlFlowCommCode, op.location(), 1,
                           fmt::format("{} inside pd_op.if/pd_op.while: whether it runs may differ across ranks; "
                                       "it is listed but not checked",
                                       op.name()));
    calls.push_back(std::move(call));
  }

  DiagnosticEngine& diagnostics_;
};

}  // namespace

std::vector<CommCall> collectCommCalls(const Program& program, DiagnosticEngine& diagnostics) {
  CallCollector collector(diagnostics);
  collector.collect(*program.body(), false);
  return std::move(collector.calls);
}

}  // namespace reshardctl
