#include <doctest/doctest.h>

#include "exec/execution_backend.h"
#include "interp/validation.h"
#include "interp/validation_report.h"
#include "passes/partition_pass.h"
#include "syntax/printer.h"
#include "support/failure.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

struct Validated {
  testing::Parsed parsed;
  ValidationOutcome outcome;
};

Validated validateFile(const std::string& path, bool apply, ValidateOptions options = {}) {
  Validated v{testing::parse(testing::readRepoFile(path), path), {}};
  REQUIRE(v.parsed.program);
  const ValueNames names(*v.parsed.program);
  const uint32_t named = v.parsed.program->valueCount();
  if (apply) REQUIRE(applyPartitionPass(*v.parsed.program, *v.parsed.diagnostics).ok);
  options.nameOf = [&names, named](const Value* value) { return value->id < named ? names.name(value) : ""; };
  auto backend = makeCpuBackend();
  v.outcome = validateProgram(*v.parsed.program, *backend, options);
  return v;
}

// `text` parsed (it must parse) and validated.
ValidationOutcome validateText(const std::string& text, const ValidateOptions& options = {}) {
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  auto backend = makeCpuBackend();
  return validateProgram(*parsed.program, *backend, options);
}

size_t lineOf(const Validated& v, const Divergence& d) { return v.parsed.source->lineCol(d.op->location()).line; }

}  // namespace

TEST_CASE("the seed before-program first goes wrong at the relu on the partial %8") {
  const Validated v = validateFile("samples/seed_mlp_before.ir", false);
  REQUIRE(v.outcome.divergences.size() == 1);
  const Divergence& d = v.outcome.divergences.front();
  CHECK(lineOf(v, d) == 11);
  CHECK(d.op->name() == "pd_op.relu");
  CHECK(d.kind == "replicas");
  CHECK(d.value == "%9");
  CHECK(d.ranks == std::vector<int64_t>{0, 1});
  CHECK(v.outcome.stoppedEarly);
  CHECK(v.outcome.matchedOps == 9);
  CHECK(v.outcome.ranks == 2);
}

TEST_CASE("the pass's output matches the serial program under any seed") {
  for (uint64_t seed : {1u, 5u, 1234u}) {
    ValidateOptions options;
    options.seed = seed;
    const Validated v = validateFile("samples/seed_mlp_before.ir", true, options);
    CHECK(v.outcome.divergences.empty());
    CHECK(v.outcome.matchedOps == v.outcome.totalOps);
  }
}

TEST_CASE("--all goes on from the serial values: each report is about its own op") {
  ValidateOptions options;
  options.all = true;
  const Validated v = validateFile("tests/golden/validate/all_divergences.ir", true, options);
  REQUIRE(v.outcome.divergences.size() == 2);
  CHECK(v.outcome.divergences[0].kind == "shape");
  CHECK(lineOf(v, v.outcome.divergences[0]) == 8);
  CHECK(v.outcome.divergences[1].kind == "replicas");
  CHECK(lineOf(v, v.outcome.divergences[1]) == 10);
  CHECK_FALSE(v.outcome.stoppedEarly);
  CHECK(v.outcome.divergedOps == 2);
  CHECK(v.outcome.matchedOps + 2 == v.outcome.totalOps);
}

TEST_CASE("ops without a kernel are listed once per name; what they feed is not checked") {
  const Validated v = validateFile("tests/golden/validate/not_simulated.ir", false);
  REQUIRE(v.outcome.notSimulated.size() == 1);
  CHECK(v.outcome.notSimulated[0].op == "pd_op.flash_attn");
  CHECK(v.outcome.notSimulated[0].count == 2);
  CHECK(v.outcome.notSimulatedOps == 2);
  CHECK(v.outcome.dependentOps == 1);
  CHECK(notSimulatedLine(v.outcome) == "not simulated: pd_op.flash_attn \u00d72");
  CHECK(summaryLine(v.outcome) ==
        "5 of 8 ops match the serial program on 2 ranks; 3 not checked (2 not simulated, 1 fed by values that are "
        "not)");
}

TEST_CASE("cf.stack_create's stacks hand each pop what its push saw, serially and on every rank") {
  // The partial that tuple_pop hands on reaches the relu unresharded: found there.
  const Validated before = validateFile("tests/golden/pass/stack_alias_dist.ir", false);
  CHECK(before.outcome.notSimulated.empty());
  REQUIRE(before.outcome.divergences.size() == 1);
  CHECK(before.outcome.divergences.front().op->name() == "pd_op.relu");
  const Validated after = validateFile("tests/golden/pass/stack_alias_dist.ir", true);
  CHECK(after.outcome.notSimulated.empty());
  CHECK(after.outcome.divergences.empty());
  CHECK(after.outcome.matchedOps == after.outcome.totalOps);
}

TEST_CASE("a pop from an empty stack is not simulated, and what it feeds is not checked") {
  const std::string text =
      "{\n"
      "    (%stack_0, %inlet_0, %outlet_0) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n"
      "    (%0) = \"cf.tuple_pop\" (%outlet_0) {} : (cf.outlet) -> builtin.tensor<4xf32>\n"
      "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
      "}\n";
  const ValidationOutcome outcome = validateText(text);
  REQUIRE(outcome.notSimulated.size() == 1);
  CHECK(outcome.notSimulated.front().reason == "it pops an empty stack");
  CHECK(outcome.dependentOps == 1);
}

TEST_CASE("what stacks hold is bounded by --max-memory: the push past it is not simulated, pops still pair up") {
  const std::string push = "    () = \"cf.tuple_push\" (%inlet_0, %0) {} : (cf.inlet, builtin.tensor<4xf32>) -> \n";
  const std::string text =
      "{\n"
      "    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",place:(pd_op.Place)Place(undefined:0),"
      "shape:(pd_op.IntArray)[4],stop_gradient:[false]} : () -> builtin.tensor<4xf32>\n"
      "    (%stack_0, %inlet_0, %outlet_0) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n" +
      push + push + push + push +
      "    (%1) = \"cf.tuple_pop\" (%outlet_0) {} : (cf.outlet) -> builtin.tensor<4xf32>\n"
      "}\n";
  ValidateOptions options;
  // Up front the values need 176 bytes (x and the pop: serial and one rank, 4 doubles each; the
  // three handles 16 each); a pushed copy of x holds 64, so three pushes fit in 200 and the fourth does not.
  options.budget.maxMemoryBytes = 200;
  const ValidationOutcome outcome = validateText(text, options);
  REQUIRE(outcome.notSimulated.size() == 1);
  CHECK(outcome.notSimulated.front().op == "cf.tuple_push");
  CHECK(outcome.notSimulated.front().reason.find("--max-memory") != std::string::npos);
  CHECK(outcome.dependentOps == 1);  // the pop takes the fourth push's unknown tuple
  CHECK(outcome.divergences.empty());
}

TEST_CASE("a while loop runs its body until its replicated condition fails") {
  const Validated v = validateFile("tests/golden/validate/while_loop.ir", false);
  CHECK(v.outcome.divergences.empty());
  CHECK(v.outcome.matchedOps == v.outcome.totalOps);
  ValidateOptions short_loop;
  short_loop.maxLoopIterations = 2;  // the loop runs 3 times
  const Validated cut = validateFile("tests/golden/validate/while_loop.ir", false, short_loop);
  REQUIRE(cut.outcome.notSimulated.size() == 1);
  CHECK(cut.outcome.notSimulated[0].op == "pd_op.while");
}

// The usage Failure validating `text` under `budget` throws ("" when none).
std::string budgetRefusal(const std::string& text, const WorkBudget& budget) {
  const testing::Parsed parsed = testing::parse(text, "budget.ir");
  REQUIRE(parsed.program);
  ValidateOptions options;
  options.budget = budget;
  auto backend = makeCpuBackend();
  try {
    validateProgram(*parsed.program, *backend, options);
  } catch (const Failure& failure) {
    CHECK(failure.kind == FailureKind::Usage);
    return failure.message;
  }
  return "";
}

// `text` with `from` replaced by `to` (once; it must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("the work budget refuses up front, or stops the loop that repeats past it; memory up front") {
  const std::string loop = testing::readRepoFile("tests/golden/validate/while_loop.ir");
  CHECK(budgetRefusal(loop, WorkBudget{}).empty());
  // 11 ops once each: about 2,000 units an op (the fixed cost of a run), so 10,000 is refused up front.
  CHECK(budgetRefusal(loop, WorkBudget{10'000, 0}).find("each run once") != std::string::npos);
  // The loop states its 3 trips (counter from 0 by 1 while below 3): 7 ops and 3 x 4 body ops, 38,404.
  CHECK(budgetRefusal(loop, WorkBudget{30'000, 0}).find("need 3.84e+04 units") != std::string::npos);
  CHECK(budgetRefusal(loop, WorkBudget{40'000, 0}).empty());
  // The same loop tested as `3 > i` is not the counted form: its body counts once up front, and
  // the run stops at the op that passes the budget.
  const std::string uncounted = replaced(loop, "\"pd_op.less_than\" (%7, %2)", "\"pd_op.greater_than\" (%2, %7)");
  CHECK(budgetRefusal(uncounted, WorkBudget{30'000, 0}).find("again: loops repeat it") != std::string::npos);
  CHECK(budgetRefusal(loop, WorkBudget{0, 100}).find("more than --max-memory=100") != std::string::npos);
}

TEST_CASE("tolerances can be widened until a divergence passes") {
  ValidateOptions loose;
  loose.rtol = 1e9;
  loose.atol = 1e9;
  const Validated v = validateFile("tests/golden/validate/wrong_tp_mean_partial_sum.ir", true, loose);
  CHECK(v.outcome.divergences.empty());
}

}  // namespace reshardctl
