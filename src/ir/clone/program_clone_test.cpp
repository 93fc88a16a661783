#include "ir/clone/program_clone.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/rewriter.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// Each value's uses as (op's place in print order, operand number), in
// use-list order, values in print order: equal for two programs exactly when
// their use lists hold the same uses in the same order.
std::vector<std::vector<std::pair<size_t, size_t>>> useLists(const Program& program) {
  std::unordered_map<const Operation*, size_t> place;
  std::vector<const Value*> values;
  const auto walk = [&](const Block& block, auto&& self) -> void {
    for (const Value* argument : block.arguments()) values.push_back(argument);
    for (const Operation* op : block) {
      place.emplace(op, place.size());
      for (size_t i = 0; i < op->numResults(); ++i) values.push_back(op->result(i));
      for (const Block* region : op->regions()) self(*region, self);
    }
  };
  walk(*program.body(), walk);
  std::vector<std::vector<std::pair<size_t, size_t>>> lists;
  for (const Value* value : values) {
    lists.emplace_back();
    for (const Operand* use = value->firstUse; use; use = use->nextUse()) {
      const Operation* owner = use->owner();
      lists.back().emplace_back(place.at(owner), static_cast<size_t>(use - &owner->operand(0)));
    }
  }
  return lists;
}

std::vector<uint32_t> valueIds(const Program& program) {
  std::vector<uint32_t> ids;
  for (const Value* argument : program.body()->arguments()) ids.push_back(argument->id);
  walkOps(*program.body(), [&](const Operation* op) {
    for (const Block* region : op->regions())
      for (const Value* argument : region->arguments()) ids.push_back(argument->id);
    for (size_t i = 0; i < op->numResults(); ++i) ids.push_back(op->result(i)->id);
  });
  return ids;
}

}  // namespace

TEST_CASE("a clone prints byte-identically, with the same use lists and value ids, and passes the checks") {
  size_t cloned = 0;
  // Every sample and golden input: every print era and layout the printer
  // keeps (while bodies, keyword arguments, blank lines, CRLF, debug ids, the
  // module header, aliases, names kept as read, no final newline).
  for (const std::filesystem::path& path : testing::repositoryInputs()) {
    const std::string file = std::filesystem::relative(path, RESHARDCTL_SOURCE_DIR).string();
    CAPTURE(file);
    testing::Parsed parsed = testing::parse(testing::readRepoFile(file), file);
    if (!parsed.program) continue;  // a log of several programs or a fragment: not one program
    const Program& original = *parsed.program;
    std::unique_ptr<Program> clone = cloneProgram(original);
    CHECK(printProgramToString(*clone) == printProgramToString(original));
    CHECK(useLists(*clone) == useLists(original));
    CHECK(valueIds(*clone) == valueIds(original));
    CHECK(clone->valueCount() == original.valueCount());
    CHECK(checkGraph(*clone).empty());
    CHECK(verifyProgram(*clone, *parsed.diagnostics));
    ++cloned;
  }
  CHECK(cloned >= 150);
}

TEST_CASE("changing a clone leaves the original as it was") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_after.ir"));
  REQUIRE(parsed.program);
  const Program& original = *parsed.program;
  const std::string before = printProgramToString(original);
  const auto listsBefore = useLists(original);
  std::unique_ptr<Program> clone = cloneProgram(original);
  Rewriter rewriter(*clone);
  // One op's attributes replaced, every use dropped, then every op erased.
  std::vector<Operation*> ops;
  walkOps(*clone->body(), [&](Operation* op) { ops.push_back(op); });
  REQUIRE(ops.size() > 3);
  rewriter.setAttributes(ops[1], clone->strings().intern("{changed:true}"));
  for (auto op = ops.rbegin(); op != ops.rend(); ++op) {
    for (size_t i = 0; i < (*op)->numResults(); ++i) (*op)->result(i)->replaceAllUsesWith(nullptr);
    if ((*op)->parentBlock() == clone->body()) rewriter.eraseOp(*op);
  }
  CHECK(clone->body()->empty());
  CHECK(checkGraph(*clone).empty());
  CHECK(printProgramToString(original) == before);
  CHECK(useLists(original) == listsBefore);
  CHECK(checkGraph(original).empty());
}

TEST_CASE("a clone finds the original's types by text, so types still compare by pointer") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_after.ir"));
  REQUIRE(parsed.program);
  Program& original = *parsed.program;
  std::unique_ptr<Program> clone = cloneProgram(original);
  const Type* type = original.body()->front()->result(0)->type;
  REQUIRE(type != nullptr);
  CHECK(clone->types().find(type->text) == type);
  CHECK(clone->body()->front()->result(0)->type == type);
  // A clone of a clone still sees them.
  std::unique_ptr<Program> second = cloneProgram(*clone);
  CHECK(second->types().find(type->text) == type);
  CHECK(printProgramToString(*second) == printProgramToString(original));
}

}  // namespace reshardctl
