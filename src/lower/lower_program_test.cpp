#include "lower/lower_program.h"

#include <string>
#include <vector>

#include <algorithm>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "passes/partition_pass.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

struct Lowered {
  testing::Parsed parsed;
  LowerSummary summary;
  std::vector<std::string> ops;  // op names, in order
  std::string text;
};

Lowered lower(const std::string& file, int64_t rank, LowerStage stage, bool apply = true,
              PaddleRelease release = PaddleRelease::V3_0) {
  Lowered out{testing::parse(testing::readRepoFile(file), file), {}, {}, {}};
  REQUIRE(out.parsed.program);
  Program& program = *out.parsed.program;
  if (apply) REQUIRE(applyPartitionPass(program, *out.parsed.diagnostics).ok);
  REQUIRE(checkLowerable(program, *out.parsed.diagnostics));
  out.summary = lowerProgram(program, LowerOptions{rank, stage, nullptr, release}, *out.parsed.diagnostics);
  walkOps(*program.body(), [&](const Operation* op) { out.ops.emplace_back(op->name()); });
  out.text = printProgramToString(program);
  return out;
}

std::vector<std::string> tail(const std::vector<std::string>& ops, size_t count) {
  return {ops.end() - static_cast<std::ptrdiff_t>(std::min(count, ops.size())), ops.end()};
}

}  // namespace

TEST_CASE("lower: the seed's dense program on each rank holds all_reduce on ring 12 and no dist text") {
  for (int64_t rank : {0, 1}) {
    Lowered lowered = lower("samples/seed_mlp_after.ir", rank, LowerStage::Dense, false);
    CHECK(lowered.summary.ok);
    CHECK(lowered.summary.reshards == 2);
    CHECK(lowered.text.find("op_dist_attr") == std::string::npos);
    CHECK(lowered.text.find("pd_dist.tensor") == std::string::npos);
    CHECK(lowered.text.find("\"pd_op.all_reduce\" (%8) {reduce_type:(Int32)0,ring_id:(Int32)12,") != std::string::npos);
    CHECK(lowered.text.find("builtin.tensor<8x8xf32>") != std::string::npos);  // parameter_1 16x8, rows split
    testing::Parsed again = testing::parse(lowered.text);
    REQUIRE(again.program);
    CHECK(printProgramToString(*again.program) == lowered.text);
  }
}

TEST_CASE("lower: Paddle's op lists for p_to_r across meshes (reshard_p_to_r_cross_mesh.py)") {
  Lowered sender = lower("tests/golden/lower/p_to_r_cross_mesh.ir", 0, LowerStage::Reshard);
  CHECK(tail(sender.ops, 5) == std::vector<std::string>{"pd_op.send_v2", "dist_op.reshard", "pd_op.all_reduce",
                                                        "pd_op.relu", "builtin.shadow_output"});
  Lowered receiver = lower("tests/golden/lower/p_to_r_cross_mesh.ir", 1, LowerStage::Reshard);
  CHECK(tail(receiver.ops, 4) ==
        std::vector<std::string>{"pd_op.recv_v2", "pd_op.all_reduce", "pd_op.relu", "builtin.shadow_output"});
}

TEST_CASE("lower: s_to_r on axis 1 gathers, splits and concatenates (pir_reshard_s_to_r.py)") {
  Lowered lowered = lower("tests/golden/lower/s_to_r_axis1.ir", 1, LowerStage::Dense);
  CHECK(lowered.ops == std::vector<std::string>{"pd_op.data", "pd_op.all_gather", "pd_op.full", "pd_op.split_with_num",
                                                "pd_op.full", "pd_op.concat", "pd_op.relu", "builtin.shadow_output"});
  CHECK(lowered.text.find("-> builtin.tensor<16x3xf32>") != std::string::npos);
}

TEST_CASE("lower: r_to_s slices per rank, the last rank to the end") {
  Lowered first = lower("tests/golden/lower/r_to_s_uneven.ir", 0, LowerStage::Dense);
  Lowered last = lower("tests/golden/lower/r_to_s_uneven.ir", 1, LowerStage::Dense);
  CHECK(first.text.find("value:[(Int64)4]") != std::string::npos);
  CHECK(last.text.find("value:[(Int64)7]") != std::string::npos);
  CHECK(last.text.find("-> builtin.tensor<3x5xf32>") != std::string::npos);
}

TEST_CASE("lower: N-D meshes run on the 1-D group holding the rank, rings agreed by every rank") {
  Lowered rank1 = lower("tests/golden/lower/nd_mesh_s_p_to_r.ir", 1, LowerStage::Dense);
  Lowered rank2 = lower("tests/golden/lower/nd_mesh_s_p_to_r.ir", 2, LowerStage::Dense);
  CHECK(rank1.text.find("\"pd_op.all_gather\" (%0) {nranks:(Int32)2,ring_id:(Int32)13") != std::string::npos);
  CHECK(rank2.text.find("\"pd_op.all_gather\" (%0) {nranks:(Int32)2,ring_id:(Int32)12") != std::string::npos);
  CHECK(rank1.text.find("\"pd_op.all_reduce\" (%1) {reduce_type:(Int32)0,ring_id:(Int32)14") != std::string::npos);
  CHECK(rank2.text.find("\"pd_op.all_reduce\" (%1) {reduce_type:(Int32)0,ring_id:(Int32)15") != std::string::npos);
}

TEST_CASE("lower: what Paddle refuses is an error at the reshard's line") {
  Lowered avg = lower("tests/golden/lower/bad-p_to_s_avg.ir", 0, LowerStage::Dense);
  CHECK_FALSE(avg.summary.ok);
  CHECK(avg.parsed.errors().find("only support sum op, but received AVG") != std::string::npos);
  Lowered used = lower("tests/golden/lower/p_to_r_cross_mesh.ir", 0, LowerStage::Dense);
  CHECK_FALSE(used.summary.ok);
  CHECK(used.parsed.errors().find("There should not have useful dist.reshard op") != std::string::npos);
}

TEST_CASE("lower: a dense program is already lowered") {
  testing::Parsed dense = testing::parse(
      "{\n    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",place:(pd_op.Place)Place(undefined:0),"
      "shape:(pd_op.IntArray)[4],stop_gradient:[true]} : () -> builtin.tensor<4xf32>\n}\n");
  REQUIRE(dense.program);
  CHECK_FALSE(checkLowerable(*dense.program, *dense.diagnostics));
  CHECK(dense.errors().find("already lowered") != std::string::npos);
  CHECK(programRanks(*dense.program).empty());
}

TEST_CASE("lower --paddle=3.0-beta: the 2024 reshard functions' c_* collectives, with their arguments") {
  const std::string file = "tests/golden/lower/paddle_3_0_beta.ir";
  Lowered beta = lower(file, 0, LowerStage::Dense, true, PaddleRelease::V3_0Beta);
  Lowered now = lower(file, 0, LowerStage::Dense, true, PaddleRelease::V3_0);
  REQUIRE(beta.summary.ok);
  const auto count = [](const Lowered& l, const std::string& name) {
    return std::count(l.ops.begin(), l.ops.end(), name);
  };
  // p_to_r once, p_to_s once, s_to_r twice: the same moves in either spelling.
  CHECK(count(beta, "pd_op.c_allreduce_sum_") == 1);
  CHECK(count(beta, "pd_op.c_reducescatter") == 1);
  CHECK(count(beta, "pd_op.c_allgather") == 2);
  CHECK(count(now, "pd_op.all_reduce") == 1);
  CHECK(count(now, "pd_op.reduce_scatter") == 1);
  CHECK(count(now, "pd_op.all_gather") == 2);
  CHECK(beta.ops.size() == now.ops.size());
  CHECK(beta.text.find("ring_id:(Int32)12,stop_gradient:[false],use_calc_stream:false,use_model_parallel:false}") !=
        std::string::npos);
  CHECK(beta.text.find("nranks:(Int32)2,ring_id:(Int32)12,stop_gradient:[false],use_calc_stream:true}") !=
        std::string::npos);
  CHECK(beta.text.find("reduce_type") == std::string::npos);
  // An AVG partial is summed, as Paddle's 3.0-beta p_to_r does: a warning, not a refusal.
  const std::string avgFile = "tests/golden/lower/warn-paddle_3_0_beta_avg.ir";
  Lowered avg = lower(avgFile, 0, LowerStage::Dense, true, PaddleRelease::V3_0Beta);
  CHECK(avg.summary.ok);
  CHECK(avg.parsed.errors().find("lowers this AVG partial as c_allreduce_sum_") != std::string::npos);
  Lowered avgNow = lower(avgFile, 0, LowerStage::Dense, true, PaddleRelease::V3_0);
  CHECK(avgNow.text.find("reduce_type:(Int32)4") != std::string::npos);  // AVG, as Paddle 3.0 writes it
  CHECK(avgNow.parsed.errors().find("c_allreduce_sum_") == std::string::npos);
}

TEST_CASE("lower: a program lowered in either release's spelling is already lowered, at the op's line") {
  for (const char* op : {"pd_op.c_allreduce_sum_", "pd_op.c_allgather", "pd_op.all_gather", "pd_op.c_broadcast"}) {
    CAPTURE(op);
    testing::Parsed lowered = testing::parse(fmt::format(
        "{{\n    (%0) = \"pd_op.data\" () {{dtype:(pd_op.DataType)float32,name:\"x\",op_dist_attr:{{mesh:{{shape:[2],"
        "process_ids:[0,1]}},result(0):{{dims_maping:[-1]}}}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[4],"
        "stop_gradient:[true]}} : () -> pd_dist.tensor<4xf32, mesh_shape:[2],dims_mappings:[-1]>\n"
        "    (%1) = \"{}\" (%0) {{ring_id:(Int32)0}} : (pd_dist.tensor<4xf32, mesh_shape:[2],dims_mappings:[-1]>) -> "
        "pd_dist.tensor<4xf32, mesh_shape:[2],dims_mappings:[-1]>\n}}\n",
        op));
    REQUIRE_MESSAGE(lowered.program, lowered.errors());
    CHECK_FALSE(checkLowerable(*lowered.program, *lowered.diagnostics));
    CHECK(lowered.errors().find(fmt::format("test.ir:3:5: error: the program holds {}", op)) != std::string::npos);
  }
}

TEST_CASE("lower: a program still holding dist_op.shard_tensor is before mix2dist, refused at the op") {
  // PR #62718's program (tests/golden/real/dist_pr62718_shard_tensor.ir): Paddle runs MixToDistPass first.
  testing::Parsed mixed = testing::parse(testing::readRepoFile("tests/golden/real/dist_pr62718_shard_tensor.ir"));
  REQUIRE_MESSAGE(mixed.program, mixed.errors());
  CHECK_FALSE(checkLowerable(*mixed.program, *mixed.diagnostics));
  CHECK(mixed.errors().find("test.ir:5:5: error: the program holds dist_op.shard_tensor: it is the program before "
                            "Paddle's apply_mix2dist_pass") == 0);
}

}  // namespace reshardctl
