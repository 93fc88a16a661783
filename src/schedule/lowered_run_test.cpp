#include <doctest/doctest.h>

#include <fmt/format.h>

#include "ir/rewriter.h"
#include "lower/lower_program.h"
#include "schedule/lowered_run.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// The dist program and each rank's lowering of it, all parsed from one text
// (so an op is at the same offset in each).
struct Lowered {
  testing::Parsed dist;
  std::vector<testing::Parsed> ranks;
  std::vector<RankInput> inputs;
  GroupTable rings;
};

Lowered lowerAll(const std::string& text) {
  Lowered l;
  l.dist = testing::parse(text);
  REQUIRE_MESSAGE(l.dist.program, l.dist.errors());
  for (int64_t rank : programRanks(*l.dist.program)) {
    l.ranks.push_back(testing::parse(text));
    testing::Parsed& copy = l.ranks.back();
    const LowerSummary summary = lowerProgram(*copy.program, LowerOptions{rank, LowerStage::Dense}, *copy.diagnostics);
    REQUIRE_MESSAGE(summary.ok, copy.errors());
    l.rings.insert(summary.rings.begin(), summary.rings.end());
  }
  for (size_t i = 0; i < l.ranks.size(); ++i)
    l.inputs.push_back({programRanks(*l.dist.program)[i], l.ranks[i].program.get(), l.ranks[i].source.get(),
                        fmt::format("rank {}", i), l.ranks[i].diagnostics.get()});
  return l;
}

const char* kPartialSum = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[-1,0]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[4,8],stop_gradient:[false]} : () -> pd_dist.tensor<4x8xf32, mesh_shape:[2],dims_mappings:[-1,0]>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"w",op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[0,-1]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[8,4],stop_gradient:[false]} : () -> pd_dist.tensor<8x4xf32, mesh_shape:[2],dims_mappings:[0,-1]>
    (%2) = "pd_op.matmul" (%0, %1) {op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},operand(0):{dims_maping:[-1,0]},operand(1):{dims_maping:[0,-1]},result(0):{dims_maping:[-1,-1],partial(0,SUM)}},stop_gradient:[false],transpose_x:false,transpose_y:false} : (pd_dist.tensor<4x8xf32, mesh_shape:[2],dims_mappings:[-1,0]>, pd_dist.tensor<8x4xf32, mesh_shape:[2],dims_mappings:[0,-1]>) -> pd_dist.tensor<4x4xf32, mesh_shape:[2],dims_mappings:[-1,-1], partial(0,SUM)>
    (%3) = "dist_op.reshard" (%2) {op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},operand(0):{dims_maping:[-1,-1],partial(0,SUM)},result(0):{dims_maping:[-1,-1]}}} : (pd_dist.tensor<4x4xf32, mesh_shape:[2],dims_mappings:[-1,-1], partial(0,SUM)>) -> pd_dist.tensor<4x4xf32, mesh_shape:[2],dims_mappings:[-1,-1]>
    (%4) = "pd_op.relu" (%3) {op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},operand(0):{dims_maping:[-1,-1]},result(0):{dims_maping:[-1,-1]}},stop_gradient:[false]} : (pd_dist.tensor<4x4xf32, mesh_shape:[2],dims_mappings:[-1,-1]>) -> pd_dist.tensor<4x4xf32, mesh_shape:[2],dims_mappings:[-1,-1]>
}
)";

ValidationOutcome validate(const Lowered& l) {
  std::unique_ptr<ExecutionBackend> backend = makeCpuBackend();
  ValidateOptions options;
  return validateLowered(*l.dist.program, l.inputs, l.rings, *backend, options);
}

}  // namespace

TEST_CASE("each rank's lowered program (a matmul's partial sum, all_reduce) matches the serial program") {
  const Lowered l = lowerAll(kPartialSum);
  const ValidationOutcome outcome = validate(l);
  CHECK(outcome.divergences.empty());
  CHECK(outcome.ranks == 2);
  CHECK(outcome.matchedOps == outcome.totalOps);
}

TEST_CASE("a rank whose lowered program lacks its all_reduce makes the reshard diverge") {
  Lowered l = lowerAll(kPartialSum);
  // Rank 1's all_reduce replaced by its input: its partial sum goes on as the whole value.
  Program& rank1 = *l.ranks[1].program;
  Operation* allReduce = nullptr;
  walkOps(*rank1.body(), [&](Operation* op) {
    if (op->name() == "pd_op.all_reduce") allReduce = op;
  });
  REQUIRE(allReduce);
  Rewriter rewriter(rank1);
  rewriter.replaceAllUsesWith(allReduce->result(0), allReduce->operandValue(0));
  rewriter.eraseOp(allReduce);
  const ValidationOutcome outcome = validate(l);
  REQUIRE(!outcome.divergences.empty());
  // Rank 0 waits in its all_reduce for a rank that never comes: a hang, not a wait.
  CHECK(outcome.divergences.front().kind == "hang");
  CHECK(outcome.divergences.front().message.find("waits forever on ring 12: rank 1 has ended") != std::string::npos);
}

}  // namespace reshardctl
