#include "interp/budget/work_budget.h"

#include <string>

#include <doctest/doctest.h>

#include "support/failure.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// One replicated 16x16 f32 parameter on a mesh of `ranks` processes: 2 KiB
// of doubles serially and once on every rank.
std::string replicatedOn(int ranks) {
  std::string ids;
  for (int r = 0; r < ranks; ++r) ids += (r ? "," : "") + std::to_string(r);
  const std::string mesh = "mesh_shape:[" + std::to_string(ranks) + "],dims_mappings:[-1,-1]";
  return "{\n    (%0) = \"builtin.parameter\" () {op_dist_attr:{mesh:{shape:[" + std::to_string(ranks) +
         "],process_ids:[" + ids + "]},result(0):{dims_maping:[-1,-1]}},parameter_name:\"w\"} : () -> "
         "pd_dist.tensor<16x16xf32, " + mesh + ">\n}\n";
}

}  // namespace

TEST_CASE("work budget: the ranks' pieces are shared over the processes, the serial values are not") {
  testing::Parsed parsed = testing::parse(replicatedOn(64), "replicated.ir");
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  const ProgramCost cost = programCost(*parsed.program, 4, 1);
  CHECK(cost.serialBytes == 16 * 16 * 8);
  CHECK(cost.rankBytes == 64 * cost.serialBytes);
  CHECK(cost.bytes == cost.serialBytes + cost.rankBytes);
  CHECK(cost.bytesPerProcess(1) == cost.bytes);
  CHECK(cost.bytesPerProcess(8) == cost.serialBytes + cost.rankBytes / 8);
  CHECK(cost.bytesPerProcess(0) == cost.bytes);  // no processes is one

  WorkBudget budget;
  budget.maxMemoryBytes = 40'000;  // 2 KiB serially + 128 KiB over the ranks: over it in one process
  CHECK_FALSE(withinBudget(cost, budget));
  try {
    checkBudgetUpFront(*parsed.program, budget, 4, 1);
    FAIL("no refusal");
  } catch (const Failure& failure) {
    const std::string message = failure.message;
    CHECK(message.find("need 1.33e+05 bytes") != std::string::npos);
    CHECK(message.find("--shrink") != std::string::npos);
    CHECK(message.find("mpirun -np 4") != std::string::npos);  // 2 KiB + 128 KiB / 4 fits 40,000 bytes
  }
  budget.processes = 4;
  CHECK(withinBudget(cost, budget));
  CHECK_NOTHROW(checkBudgetUpFront(*parsed.program, budget, 4, 1));
  budget.processes = 2;
  try {
    checkBudgetUpFront(*parsed.program, budget, 4, 1);
    FAIL("no refusal");
  } catch (const Failure& failure) {
    CHECK(failure.message.find("in each of 2 processes") != std::string::npos);
    CHECK(failure.message.find("mpirun -np 4") != std::string::npos);
  }
}

}  // namespace reshardctl
