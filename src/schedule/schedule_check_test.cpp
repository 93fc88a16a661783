#include <doctest/doctest.h>

#include <fmt/format.h>

#include "schedule/schedule.h"
#include "schedule/schedule_check.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

const std::string kTensor = "builtin.tensor<4x16xf32>";
int nextValue = 1;  // result names, distinct across every program a test makes

std::string data() {
  return "    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",place:(pd_op.Place)Place(undefined:0),"
         "shape:(pd_op.IntArray)[4,16],stop_gradient:[true]} : () -> " + kTensor + "\n";
}
std::string allReduce(int ring, int reduce = 0, const std::string& op = "pd_op.all_reduce") {
  return fmt::format("    (%{}) = \"{}\" (%0) {{reduce_type:(Int32){},ring_id:(Int32){}}} : ({}) -> {}\n", nextValue++, op, reduce, ring,
                     kTensor, kTensor);
}
std::string send(int ring, int peer) {
  return fmt::format("    () = \"pd_op.send_v2\" (%0) {{peer:(Int32){},ring_id:(Int32){}}} : ({}) -> \n", peer, ring, kTensor);
}
std::string recv(int ring, int peer) {
  return fmt::format("    (%{}) = \"pd_op.recv_v2\" () {{dtype:(pd_op.DataType)float32,out_shape:[4,16],peer:(Int32){},"
                     "ring_id:(Int32){}}} : () -> {}\n", nextValue++, peer, ring, kTensor);
}

// Parses each rank's body (rank i is program i) and checks the schedule.
struct Checked {
  std::vector<testing::Parsed> parsed;
  Schedule schedule;
  ScheduleCheck check;
};

Checked run(const std::vector<std::string>& bodies, const GroupTable& groups = {}) {
  Checked c;
  std::vector<RankInput> programs;
  for (size_t r = 0; r < bodies.size(); ++r) {
    c.parsed.push_back(testing::parse("{\n" + data() + bodies[r] + "}\n", fmt::format("r{}.ir", r)));
    REQUIRE_MESSAGE(c.parsed.back().program, c.parsed.back().errors());
  }
  for (size_t r = 0; r < bodies.size(); ++r)
    programs.push_back({static_cast<int64_t>(r), c.parsed[r].program.get(), c.parsed[r].source.get(),
                        fmt::format("r{}.ir", r), c.parsed[r].diagnostics.get()});
  c.schedule = buildSchedule(programs, groups);
  c.check = checkSchedule(c.schedule);
  return c;
}

}  // namespace

TEST_CASE("communication ops are known by name, their in-place forms too") {
  CHECK(commKindOf("pd_op.all_reduce") == CommKind::AllReduce);
  CHECK(commKindOf("pd_op.all_reduce_") == CommKind::AllReduce);
  CHECK(commKindOf("pd_op.c_allreduce_sum_") == CommKind::AllReduce);
  CHECK(commKindOf("pd_op.send_v2") == CommKind::Send);
  CHECK(commKindOf("pd_op.recv_v2") == CommKind::Recv);
  CHECK(!commKindOf("pd_op.matmul").has_value());
  CHECK(!commKindOf("pd_op.all_reduce__").has_value());
}

TEST_CASE("calls carry ring, count, dtype, reduce type and the resolved peer") {
  Checked c = run({allReduce(0, 1) + send(5, 1), allReduce(0, 1) + recv(5, 0)});
  const CommCall& ar = c.schedule.ranks[0].calls[0];
  CHECK(ar.count == 64);
  CHECK(ar.dtype == "f32");
  CHECK(ar.reduce == ReduceType::Max);
  const CommCall& s = c.schedule.ranks[0].calls[1];
  CHECK(s.ring == 5);
  CHECK(s.peer == 1);
  CHECK(c.schedule.ranks[1].calls[1].peer == 0);
  CHECK(c.schedule.communicators.at(5).from == MembersFrom::Usage);
  CHECK(c.check.clean());
  CHECK(c.check.wavefront[0].completed == 2);
}

TEST_CASE("c_allreduce_sum matches all_reduce with reduce_type SUM") {
  CHECK(run({allReduce(0), allReduce(0, 0, "pd_op.c_allreduce_sum_")}).check.clean());
  CHECK(!run({allReduce(0), allReduce(0, 0, "pd_op.c_allreduce_max_")}).check.clean());
}

TEST_CASE("each kind of finding") {
  SUBCASE("reduce type") {
    Checked c = run({allReduce(0), allReduce(0, 2)});
    REQUIRE(c.check.findings.size() == 1);
    CHECK(c.check.findings[0].kind == FindingKind::Mismatch);
    CHECK(c.check.findings[0].ops[0].rank == 1);
  }
  SUBCASE("an extra collective") {
    Checked c = run({allReduce(0) + allReduce(0), allReduce(0)});
    REQUIRE(c.check.findings.size() == 1);
    CHECK(c.check.findings[0].kind == FindingKind::Missing);
    CHECK(c.check.findings[0].ops[0].call == 1);
    CHECK(c.check.wavefront[0].blockedAt == 1);
  }
  SUBCASE("send/send") {
    Checked c = run({send(1, 1) + recv(1, 1), send(1, 0) + recv(1, 0)});
    REQUIRE(c.check.findings.size() == 1);
    CHECK(c.check.findings[0].kind == FindingKind::Deadlock);
    CHECK(c.check.findings[0].ops.size() == 2);
  }
  SUBCASE("two rings entered in opposite orders") {
    Checked c = run({allReduce(3) + allReduce(4), allReduce(4) + allReduce(3)});
    REQUIRE(c.check.findings.size() == 1);
    CHECK(c.check.findings[0].kind == FindingKind::Deadlock);
    CHECK(c.check.findings[0].message.find("a wait cycle") != std::string::npos);
  }
  SUBCASE("a send whose recv comes after the peer's own blocking call") {
    // rank 1 first waits in ring 0's all_reduce, which rank 0 enters only after its send.
    Checked c = run({send(1, 1) + allReduce(0), allReduce(0) + recv(1, 0)});
    REQUIRE(c.check.findings.size() == 1);
    CHECK(c.check.findings[0].kind == FindingKind::Deadlock);
  }
  SUBCASE("an unmatched send on a known pair") {
    Checked c = run({send(1, 1) + send(1, 1), recv(1, 0)});
    REQUIRE(c.check.findings.size() == 1);
    CHECK(c.check.findings[0].kind == FindingKind::Unmatched);
    CHECK(c.check.findings[0].ops[0].call == 1);
  }
  SUBCASE("a rank outside the communicator --groups names") {
    Checked c = run({allReduce(0), allReduce(0), allReduce(0)}, {{0, {0, 1}}});
    REQUIRE(c.check.findings.size() == 1);
    CHECK(c.check.findings[0].kind == FindingKind::NotMember);
    CHECK(c.check.findings[0].ops[0].rank == 2);
  }
  SUBCASE("a peer index past the ring's ranks") {
    Checked c = run({send(1, 7), recv(1, 0)});
    REQUIRE(!c.check.findings.empty());
    CHECK(c.check.findings[0].kind == FindingKind::BadPeer);
  }
}

TEST_CASE("a ring whose ranks have no program is listed, not checked") {
  Checked c = run({allReduce(0), allReduce(0)}, {{0, {0, 1, 2}}});
  CHECK(c.schedule.communicators.at(0).absent == std::vector<int64_t>{2});
  CHECK(c.check.clean());
  CHECK(c.check.wavefront[0].checked == 0);
}

TEST_CASE("an unreadable reduce_type is an error at the op, and the call is left out") {
  Checked c = run({allReduce(0, 9), allReduce(0)});
  CHECK(c.parsed[0].diagnostics->errorCount() == 1);
  CHECK(c.schedule.ranks[0].calls.empty());
}

TEST_CASE("the check is linear: 8 ranks of 20k calls each") {
  std::string body;
  for (int i = 0; i < 20000; ++i) body += allReduce(i % 3);
  Checked c = run(std::vector<std::string>(8, body));
  CHECK(c.schedule.callCount() == 160000);
  CHECK(c.check.clean());
}

}  // namespace reshardctl

namespace reshardctl {

TEST_CASE("a pd_op.if on a constant counts only its taken branch; on data, its calls are not checked") {
  const auto program = [](const std::string& condition) {
    return testing::parse(
        "{\n" + data() + condition +
        "    (%2) = \"pd_op.if\" (%1) {stop_gradient:[true]} -> " + kTensor + " {\n"
        "        (%3) = \"pd_op.all_reduce\" (%0) {reduce_type:(Int32)0,ring_id:(Int32)0} : (" + kTensor + ") -> " + kTensor + "\n"
        "        () = \"cf.yield\" (%3) {} : (" + kTensor + ") -> \n"
        "    } else {\n"
        "        () = \"cf.yield\" (%0) {} : (" + kTensor + ") -> \n"
        "    }\n}\n");
  };
  const auto constant = [](int value) {
    return "    (%1) = \"pd_op.full\" () {dtype:(pd_op.DataType)bool,shape:(pd_op.IntArray)[1],value:(Float)" +
           std::to_string(value) + "} : () -> builtin.tensor<1xb>\n";
  };
  const std::string flag = "    (%1) = \"pd_op.data\" () {dtype:(pd_op.DataType)bool,name:\"flag\",shape:(pd_op.IntArray)[1]} : () -> builtin.tensor<1xb>\n";
  for (const auto& [condition, calls, unknown] :
       {std::tuple{constant(1), 1u, false}, std::tuple{constant(0), 0u, false},
        std::tuple{flag, 1u, true}}) {
    testing::Parsed parsed = program(condition);
    REQUIRE_MESSAGE(parsed.program, parsed.errors());
    const std::vector<CommCall> found = collectCommCalls(*parsed.program, *parsed.diagnostics);
    REQUIRE(found.size() == calls);
    if (calls > 0) CHECK(found[0].inControlFlow == unknown);
    CHECK(parsed.diagnostics->warningCount() == (unknown ? 1u : 0u));
  }
}

}  // namespace reshardctl
