#include <doctest/doctest.h>

#include <string>

#include "ir/rewriter.h"
#include "passes/pass_runner.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {
Operation* nth(const Program& program, int n) {
  Operation* op = program.body()->front();
  while (n-- > 0) op = op->next();
  return op;
}

// The message verifyAfterPass throws, or "" when the graph holds.
std::string failureAfter(std::string_view pass, const Program& program) {
  try {
    verifyAfterPass(pass, program);
  } catch (const PassInvariantError& e) {
    return e.what();
  }
  return {};
}
}  // namespace

TEST_CASE("a pass that leaves the graph whole passes the check") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_before.ir"));
  REQUIRE(parsed.program);
  CHECK(failureAfter("partition", *parsed.program).empty());
}

TEST_CASE("a rewrite that breaks a use list is caught, naming the pass") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_before.ir"));
  REQUIRE(parsed.program);
  Value* relu = nth(*parsed.program, 5)->result(0);
  Operand* saved = relu->firstUse;
  relu->firstUse = nullptr;  // broken on purpose, as a buggy pass would
  const std::string failure = failureAfter("broken", *parsed.program);
  CHECK(failure.find("the broken pass broke the graph: a value has 0 uses in its list but ") == 0);
  relu->firstUse = saved;
}

TEST_CASE("a retype the op's dist attr disagrees with is caught by the verifier") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_before.ir"));
  REQUIRE(parsed.program);
  Rewriter rewriter(*parsed.program);
  Value* mean = nth(*parsed.program, 12)->result(0);  // rank 0, op_dist_attr dims_mapping []
  const Value* square = nth(*parsed.program, 11)->result(0);  // rank 2
  rewriter.retype(mean, square->type, square->dist);
  const std::string failure = failureAfter("retyping", *parsed.program);
  CHECK(failure.find("the retyping pass left a program the verifier rejects: result(0)") == 0);
  if (verifyEachPass()) {  // debug builds, and every ctest run (RESHARDCTL_VERIFY_EACH=1)
    CHECK_THROWS_AS(runPass("retyping", *parsed.program, [](Program&) { return 0; }), PassInvariantError);
  }
}

}  // namespace reshardctl
