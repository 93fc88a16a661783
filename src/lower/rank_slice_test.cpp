#include "lower/rank_slice.h"

#include <string>

#include <doctest/doctest.h>

#include "ir/clone/program_clone.h"
#include "lower/lower_program.h"
#include "passes/partition_pass.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

struct RankText {
  std::string text;
  bool ok = false;
  size_t reshards = 0;
  size_t diagnostics = 0;
};

// `rank`'s program lowered from a clone of `dist`: of the rank's slice, or of
// the whole program (as before slices), with what the lowering reported.
RankText lowerRank(const Program& dist, int64_t rank, LowerStage stage, const CostModel* plan, bool sliced) {
  testing::Parsed sink = testing::parse("{\n}\n");
  LowerOptions options{rank, stage, plan, PaddleRelease::V3_0};
  RankText out;
  std::unique_ptr<Program> program;
  LowerSummary summary;
  if (sliced) {
    LoweredRank lowered = lowerRankClone(dist, options, *sink.diagnostics);
    program = std::move(lowered.program);
    summary = lowered.summary;
  } else {
    program = cloneProgram(dist);
    summary = lowerProgram(*program, options, *sink.diagnostics);
  }
  out.ok = summary.ok;
  out.reshards = summary.reshards;
  out.diagnostics = sink.diagnostics->diagnostics().size();
  out.text = printProgramToString(*program);
  return out;
}

}  // namespace

TEST_CASE("rank slice: every rank's program is the same lowered from its slice as from the whole program") {
  for (const char* file : {"tests/golden/lower/plan_pipeline_stages.ir", "tests/golden/plan/pipeline.ir",
                           "samples/seed_mlp_before.ir", "samples/tp_mlp_2x2_before.ir"}) {
    testing::Parsed parsed = testing::parse(testing::readRepoFile(file), file);
    REQUIRE(parsed.program);
    REQUIRE(applyPartitionPass(*parsed.program, *parsed.diagnostics).ok);
    REQUIRE(checkLowerable(*parsed.program, *parsed.diagnostics));
    const CostModel costs;
    for (const int64_t rank : programRanks(*parsed.program))
      for (const LowerStage stage : {LowerStage::Pruned, LowerStage::Dense})
        for (const CostModel* plan : {static_cast<const CostModel*>(nullptr), &costs}) {
          CAPTURE(file);
          CAPTURE(rank);
          CAPTURE(plan != nullptr);
          const RankText whole = lowerRank(*parsed.program, rank, stage, plan, false);
          const RankText sliced = lowerRank(*parsed.program, rank, stage, plan, true);
          CHECK(sliced.ok == whole.ok);
          CHECK(sliced.reshards == whole.reshards);
          CHECK(sliced.diagnostics == whole.diagnostics);
          if (whole.ok) CHECK(sliced.text == whole.text);  // a refused lowering is never printed
        }
  }
}

TEST_CASE("rank slice: a stage on other ranks that feeds nothing of the rank's is left out") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("tests/golden/lower/plan_pipeline_stages.ir"));
  REQUIRE(parsed.program);
  REQUIRE(applyPartitionPass(*parsed.program, *parsed.diagnostics).ok);
  // The last stage (on [0,1,2,3]) feeds nothing: ranks 4..7 skip it.
  size_t skipped = 0;
  for (const int64_t rank : programRanks(*parsed.program)) skipped += RankSlice(*parsed.program, rank).skippedCount();
  CHECK(skipped > 0);
  const RankSlice whole(*parsed.program, 0);
  CHECK_FALSE(whole.skipped(*parsed.program->body()->front()));  // rank 0's own pd_op.data
}

}  // namespace reshardctl
