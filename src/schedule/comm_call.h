// One rank's communication calls, in the order its program issues them: the
// collectives and point-to-point ops of the dense programs each rank runs
// (Paddle's per-rank programs, FLAGS_print_ir), read from their attributes.
// The attribute names are those of Paddle's op definitions (ops.yaml, as the
// generated paddle/phi/api/include/api.h declares them; docs/passes.md):
//   all_reduce(x, int ring_id, int reduce_type)     all_gather(x, ring_id, nranks)
//   reduce_scatter(x, ring_id, nranks)              broadcast(x, ring_id, root)
//   reduce(x, ring_id, root_id, reduce_type)        all_to_all(x, ring_id)
//   barrier(x, ring_id)                             send_v2(x, ring_id, peer, ...)
//   recv_v2(out_shape, dtype, peer, ring_id, ...)   c_allreduce_{sum,max,min,prod,avg}(x, ring_id, ...)
//   c_allgather / c_reducescatter(x, ring_id, nranks, ...)   c_broadcast(x, ring_id, root, ...)
//   c_reduce_{sum,...}(x, ring_id, root_id, ...)    p_send / p_recv (peer, ring_id)
// and each op's in-place form (`all_reduce_`). `peer` is the peer's index in
// its group's ranks (`group.ranks.index(dst)`, SameStatusReshardFunction),
// resolved to a rank once the communicator is known (communicators.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/dist_attr.h"
#include "ir/ir.h"

namespace reshardctl {

enum class CommKind : uint8_t { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, Barrier, Send, Recv };

std::string_view commKindName(CommKind kind);  // "all_reduce", ..., "send", "recv"
bool isPointToPoint(CommKind kind);

// The kind of a communication op by its printed name, nullopt for any other op.
std::optional<CommKind> commKindOf(std::string_view opName);

struct CommCall {
  CommKind kind = CommKind::AllReduce;
  std::string op;       // the op's name as printed (a copy: calls outlive a lowered rank's program)
  int64_t ring = 0;     // ring_id: the communicator
  int64_t peerIndex = -1;  // send/recv: `peer` as printed (an index into the group's ranks)
  int64_t peer = -1;       // send/recv: the peer's rank, once resolved; -1 unknown
  int64_t count = -1;      // elements sent (all_gather: each rank's part); -1 when a dim is dynamic
  std::string dtype;       // the element type's PIR spelling ("f32"), "" unknown
  std::optional<ReduceType> reduce;  // reductions only
  int64_t root = -1;                 // broadcast / reduce
  uint32_t location = 0;             // the op's line
  bool inControlFlow = false;        // inside pd_op.if / pd_op.while: not statically known
  std::vector<int64_t> meshRanks;    // op_dist_attr's process ids, when it has them
  const Operation* source = nullptr;  // the op itself (valid while its program lives)
};

// What a call's partners must agree on, for messages: "all_reduce SUM 64 x f32".
std::string callSignature(const CommCall& call);
// Whether two calls of one communicator match (kind, count, dtype, reduce type,
// root); an unknown count or dtype matches anything.
bool sameCollective(const CommCall& a, const CommCall& b);

// The communication calls of `program` in print order. A pd_op.if whose
// condition is a constant (a pd_op.full, the same on every rank) is
// expanded: only its taken branch's calls count. A pd_op.while counted by
// constants (interp/budget/loop_trip_count.h: at most kMaxStaticTrips trips) is expanded:
// its body's calls once per trip, up to kMaxExpandedOpVisits op visits in
// all the program's expansions. A call inside any other pd_op.if or
// pd_op.while is kept with inControlFlow set and a warning
// (`control-flow-comm`) in `diagnostics`: whether and how often it runs may
// differ across ranks. An attribute that is present but unreadable is an
// error there, and the call is left out. Linear in the program's ops plus
// the expansions' op visits.
inline constexpr size_t kMaxExpandedOpVisits = size_t{1} << 22;
// Loops that run more often than this are not expanded (the check warns and
// lists their calls unchecked instead).
inline constexpr int64_t kMaxStaticTrips = 4096;
std::vector<CommCall> collectCommCalls(const Program& program, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
