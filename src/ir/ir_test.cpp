#include <doctest/doctest.h>

#include <sstream>

#include "ir/ir.h"
#include "ir/rewriter.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {
// %0 is used by %1's op twice and by %2's op once.
const char* kProgram =
    "{\n"
    "    (%0) = \"a.src\" () {} : () -> builtin.tensor<4xf32>\n"
    "    (%1) = \"a.add\" (%0, %0) {} : (builtin.tensor<4xf32>, builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
    "    (%2) = \"a.neg\" (%0) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
    "}\n";

Operation* nth(const Program& program, int n) {
  Operation* op = program.body()->front();
  while (n-- > 0) op = op->next();
  return op;
}

Operation* createCopy(Rewriter& rewriter, Value* input) {
  OpSpec spec;
  spec.name = "a.copy";
  if (input) spec.operands = {input};
  spec.resultTypes = {input ? input->type : nullptr};
  return rewriter.create(spec);
}
}  // namespace

TEST_CASE("use lists stay consistent through every rewrite primitive") {
  testing::Parsed parsed = testing::parse(kProgram);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  Program& program = *parsed.program;
  Rewriter rewriter(program);
  Value* source = nth(program, 0)->result(0);
  CHECK(source->useCount() == 3);

  SUBCASE("setOperand moves one use") {
    rewriter.setInsertionPoint(nth(program, 1));
    Operation* copy = createCopy(rewriter, source);
    rewriter.setOperand(nth(program, 2), 1, copy->result(0));
    CHECK(source->useCount() == 3);  // two left on add, one on neg, one on the copy
    CHECK(copy->result(0)->useCount() == 1);
    CHECK(checkGraph(program).empty());
  }
  SUBCASE("replaceAllUsesWith moves every use") {
    rewriter.setInsertionPointAfter(nth(program, 0));
    Operation* copy = createCopy(rewriter, source);
    rewriter.replaceAllUsesExcept(source, copy->result(0), copy);
    CHECK(source->useCount() == 1);  // only the copy
    CHECK(copy->result(0)->useCount() == 3);
    CHECK(checkGraph(program).empty());
    CHECK(printProgramToString(program).find("(%2) = \"a.add\" (%1, %1)") != std::string::npos);
  }
  SUBCASE("eraseOp drops the op's uses") {
    Operation* neg = nth(program, 2);
    rewriter.eraseOp(neg);
    CHECK(source->useCount() == 2);
    CHECK(program.body()->back() == nth(program, 1));
    CHECK(checkGraph(program).empty());
  }
  SUBCASE("replaceAllUsesWith, then erase the dead producer") {
    rewriter.setInsertionPoint(nth(program, 0));
    Operation* other = createCopy(rewriter, nullptr);
    rewriter.replaceAllUsesWith(source, other->result(0));
    CHECK(source->useEmpty());
    rewriter.eraseOp(source->definingOp);
    CHECK(checkGraph(program).empty());
    CHECK(rewriter.changeCount() == 3);
  }
}

TEST_CASE("retype and setDist change a value through the rewriter, and count") {
  testing::Parsed parsed = testing::parse(kProgram);
  REQUIRE(parsed.program);
  Program& program = *parsed.program;
  Rewriter rewriter(program);
  Value* sum = nth(program, 1)->result(0);
  const TensorDistAttr* dist = program.keepTensorDistAttr(TensorDistAttr{});
  rewriter.retype(sum, nullptr, dist);
  CHECK(sum->type == nullptr);
  CHECK(sum->dist == dist);
  rewriter.setDist(sum, nullptr);
  CHECK(sum->dist == nullptr);
  CHECK(rewriter.changeCount() == 2);
  CHECK(checkGraph(program).empty());
}

TEST_CASE("checkGraph notices a broken use list") {
  testing::Parsed parsed = testing::parse(kProgram);
  REQUIRE(parsed.program);
  Value* source = nth(*parsed.program, 0)->result(0);
  Operand* saved = source->firstUse;
  source->firstUse = nullptr;  // corrupt on purpose
  CHECK_FALSE(checkGraph(*parsed.program).empty());
  source->firstUse = saved;
  CHECK(checkGraph(*parsed.program).empty());
}

TEST_CASE("ValueNames numbers values the way the printer does") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_after.ir"));
  REQUIRE(parsed.program);
  ValueNames names(*parsed.program);
  std::istringstream printed(printProgramToString(*parsed.program));
  std::string line;
  std::getline(printed, line);  // "{"
  walkOps(*parsed.program->body(), [&](const Operation* op) {
    std::string results = "    (";
    for (size_t i = 0; i < op->numResults(); ++i)
      results += (i ? ", " : "") + names.name(op->result(i));
    std::getline(printed, line);
    CHECK(line.substr(0, results.size() + 1) == results + ")");
  });
  CHECK(names.name(nth(*parsed.program, 9)->result(0)) == "%9");
}

}  // namespace reshardctl
