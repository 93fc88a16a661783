#include "schedule/lowered_ranks.h"

#include <string>

#include <doctest/doctest.h>

#include "passes/partition_pass.h"
#include "schedule/schedule_check.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// The file lowered for every rank, each rank from a clone of it.
struct DistSchedule {
  std::string text;
  testing::Parsed first;
  LoweredRanks lowered;
  Schedule schedule;  // each rank's calls, collected as it was lowered
};

void lowerText(DistSchedule& dist, const std::string& file, bool apply = false) {
  dist.first = testing::parse(dist.text, file);
  REQUIRE(dist.first.program);
  if (apply) REQUIRE(applyPartitionPass(*dist.first.program, *dist.first.diagnostics).ok);
  const auto collect = [&](int64_t rank, const Program& program) {
    dist.schedule.add(collectRank({rank, &program, dist.first.source.get(), "dist.ir", dist.first.diagnostics.get()}));
  };
  dist.lowered = lowerEveryRank(dist.first.program.get(), collect, *dist.first.diagnostics);
}

void lowerFile(DistSchedule& dist, const std::string& file, bool apply = false) {
  dist.text = testing::readRepoFile(file);
  lowerText(dist, file, apply);
}

// The text with `from` replaced by `to` everywhere.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string_view lineAt(const SourceFile& source, size_t offset) {
  const std::string_view text = source.text().substr(offset);
  return text.substr(0, text.find('\n'));
}

// Every rank's calls, its communicators lowering's groups.
Schedule scheduleOf(const DistSchedule& dist) {
  Schedule schedule = dist.schedule;
  resolveSchedule(schedule, dist.lowered.groups);
  return schedule;
}

}  // namespace

TEST_CASE("lowered ranks: a dist program is one to lower, a lowered one is not") {
  testing::Parsed dist = testing::parse(testing::readRepoFile("samples/seed_mlp_after.ir"), "after.ir");
  REQUIRE(dist.program);
  CHECK(isDistProgram(*dist.program));
  testing::Parsed rank = testing::parse(testing::readRepoFile("tests/golden/schedule/skipped_collective.r0.ir"), "r0.ir");
  REQUIRE(rank.program);
  CHECK_FALSE(isDistProgram(*rank.program));
}

TEST_CASE("lowered ranks: the seed on both ranks, one ring of both, and a clean schedule at the reshards' lines") {
  DistSchedule dist;
  lowerFile(dist, "samples/seed_mlp_after.ir");
  REQUIRE(dist.lowered.ok);
  CHECK(dist.lowered.ranks == std::vector<int64_t>{0, 1});
  CHECK(dist.lowered.groups == GroupTable{{12, {0, 1}}});
  const Schedule schedule = scheduleOf(dist);
  CHECK(checkSchedule(schedule).clean());
  REQUIRE(schedule.ranks[0].calls.size() == 2);
  for (const CommCall& call : schedule.ranks[0].calls)  // each at the line of the dist_op.reshard it lowers
    CHECK(lineAt(*dist.first.source, call.location).find("\"dist_op.reshard\"") != std::string_view::npos);
}

TEST_CASE("lowered ranks: a point-to-point group keeps its order, so the sender's peer names the receiver") {
  DistSchedule dist;
  // The pipeline with its stages' ranks exchanged: rank 1 sends to rank 0, on group [1,0].
  const std::string pipeline = testing::readRepoFile("tests/golden/lower/same_status_pipeline.ir");
  dist.text = replaced(replaced(replaced(pipeline, "process_ids:[0]", "process_ids:[@]"), "process_ids:[1]", "process_ids:[0]"),
                       "process_ids:[@]", "process_ids:[1]");
  lowerText(dist, "pipeline.ir", true);
  REQUIRE_MESSAGE(dist.lowered.ok, dist.first.errors());
  bool reversed = false;  // a group [b,a] with b > a: sorting it would turn the peer index around
  for (const auto& [ring, ranks] : dist.lowered.groups) reversed = reversed || (ranks.size() == 2 && ranks[0] > ranks[1]);
  CHECK(reversed);
  const Schedule schedule = scheduleOf(dist);
  CHECK(checkSchedule(schedule).clean());
}

TEST_CASE("lowered ranks: a program without op_dist_attr is refused, diagnosed") {
  DistSchedule dist;
  lowerFile(dist, "tests/golden/schedule/skipped_collective.r0.ir");
  CHECK_FALSE(dist.lowered.ok);
  CHECK(dist.first.errors().find("has no op_dist_attr") != std::string::npos);
}

TEST_CASE("lowered ranks: every rank lowers a clone, so the dist program stays as it was read") {
  DistSchedule dist;
  dist.text = testing::readRepoFile("tests/golden/lower/nd_mesh_s_p_to_r.ir");
  testing::Parsed again = testing::parse(dist.text, "again.ir");
  REQUIRE(again.program);
  REQUIRE(applyPartitionPass(*again.program, *again.diagnostics).ok);
  const std::string partitioned = printProgramToString(*again.program);
  lowerText(dist, "nd.ir", true);
  REQUIRE(dist.lowered.ok);
  CHECK(dist.lowered.ranks.size() == 4);
  CHECK(dist.schedule.ranks.size() == 4);
  CHECK(printProgramToString(*dist.first.program) == partitioned);
  CHECK(checkGraph(*dist.first.program).empty());
}

}  // namespace reshardctl

namespace reshardctl {

TEST_CASE("lowered ranks: the work of lowering every rank counts the process groups each rank makes") {
  // An all_gather over one 1-D mesh of N ranks: every rank's lowering makes
  // the group of all N, so the work grows as N x N.
  auto allGatherOn = [](int64_t ranks) {
    std::string ids;
    for (int64_t id = 0; id < ranks; ++id) ids += (id ? "," : "") + std::to_string(id);
    const std::string mesh = "{shape:[" + std::to_string(ranks) + "],process_ids:[" + ids + "]}";
    const std::string rows = std::to_string(2 * ranks);  // split evenly, as Paddle's s_to_r needs
    const std::string type =
        "pd_dist.tensor<" + rows + "x4xf32, mesh_shape:[" + std::to_string(ranks) + "],dims_mappings:[";
    return "{\n    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",op_dist_attr:{mesh:" + mesh +
           ",result(0):{dims_maping:[0,-1]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[" + rows +
           ",4],stop_gradient:[true]} : () -> " + type + "0,-1]>\n    (%1) = \"pd_op.relu\" (%0) {op_dist_attr:{mesh:" +
           mesh + ",operand(0):{dims_maping:[-1,-1]},result(0):{dims_maping:[-1,-1]}},stop_gradient:[false]} : (" +
           type + "0,-1]>) -> " + type + "-1,-1]>\n}\n";
  };
  DistSchedule fits;
  fits.text = allGatherOn(64);
  lowerText(fits, "fits.ir", true);
  CHECK(fits.lowered.ok);
  DistSchedule refused;
  refused.text = allGatherOn(4200);
  lowerText(refused, "refused.ir", true);
  CHECK_FALSE(refused.lowered.ok);
  CHECK(refused.first.errors().find("for each of 4200 ranks that is") != std::string::npos);
  CHECK(refused.first.errors().find("more than schedule lowers (16777216)") != std::string::npos);
  CHECK(refused.schedule.ranks.empty());  // refused after the first rank, before any was handed on
}

}  // namespace reshardctl
