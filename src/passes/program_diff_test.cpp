#include <doctest/doctest.h>

#include <cctype>

#include "passes/program_diff.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

using Kind = OpChange::Kind;

struct Pair {
  testing::Parsed before;
  testing::Parsed after;
};

Pair parsePair(const std::string& before, const std::string& after) {
  Pair pair{testing::parse(before, "a.ir"), testing::parse(after, "b.ir")};
  REQUIRE_MESSAGE(pair.before.program, pair.before.errors());
  REQUIRE_MESSAGE(pair.after.program, pair.after.errors());
  return pair;
}

ProgramDiff diff(const Pair& pair, DiffOptions options = {}) {
  return diffPrograms(*pair.before.program, *pair.after.program, options);
}

// Renames every %N to a name unrelated to N: a different numbering of the
// same program.
std::string renumber(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] != '%' || i + 1 >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i + 1])))
      continue;
    size_t end = i + 1;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    out += "v" + std::to_string(std::stoi(text.substr(i + 1, end - i - 1)) * 7 % 37);
    i = end - 1;
  }
  return out;
}

const std::string kSmall =
    "{\n"
    "    (%0) = \"pd_op.data\" () {name:\"x\",stop_gradient:[true]} : () -> builtin.tensor<4xf32>\n"
    "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
    "    (%2) = \"pd_op.relu\" (%1) {stop_gradient:[true]} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
    "}\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("renumbering alone is no difference") {
  std::string seed = testing::readRepoFile("samples/seed_mlp_after.ir");
  Pair pair = parsePair(seed, renumber(seed));
  REQUIRE(pair.after.source->text() != pair.before.source->text());
  CHECK(diff(pair).equal());
}

TEST_CASE("the seed's before and after differ by two reshards and their consumers") {
  Pair pair = parsePair(testing::readRepoFile("samples/seed_mlp_before.ir"),
                        testing::readRepoFile("samples/seed_mlp_after.ir"));
  ProgramDiff d = diff(pair);
  REQUIRE(d.changes.size() == 4);
  CHECK(d.count(Kind::Added) == 2);
  CHECK(d.count(Kind::Changed) == 2);
  CHECK(d.count(Kind::Removed) == 0);
  CHECK(d.changes[0].after->name() == "dist_op.reshard");
  CHECK(d.changes[1].after->name() == "pd_op.relu");
  CHECK(d.changes[1].differences == std::vector<std::string>{"operand 0", "operand 0 type"});
  CHECK(d.changes[2].after->name() == "dist_op.reshard");
  CHECK(d.changes[3].after->name() == "pd_op.relu_grad");
  CHECK(d.changes[3].differences == std::vector<std::string>{"operand 1", "operand 1 type"});
  CHECK(formatDiffStat(d) == "2 ops added, 0 removed, 2 changed (26 ops -> 28 ops)\n");

  // The linear fallback for huge blocks finds the same changes here.
  DiffOptions greedy;
  greedy.maxAlignmentCells = 0;
  ProgramDiff g = diff(pair, greedy);
  REQUIRE(g.changes.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(g.changes[i].kind == d.changes[i].kind);
    CHECK(g.changes[i].after == d.changes[i].after);
  }
}

TEST_CASE("changed attributes are named, and --ignore-attr hides them") {
  Pair pair = parsePair(kSmall, replaced(kSmall, "(%0) {stop_gradient:[false]}",
                                         "(%0) {op_role:(Int32)1,stop_gradient:[true]}"));
  ProgramDiff d = diff(pair);
  REQUIRE(d.changes.size() == 1);
  CHECK(d.changes[0].kind == Kind::Changed);
  CHECK(d.changes[0].differences ==
        std::vector<std::string>{"attribute stop_gradient", "attribute op_role added"});
  CHECK(diff(pair, {{"op_role", "stop_gradient"}}).equal());
  CHECK(diff(pair, {{"op_role"}}).changes.size() == 1);
}

TEST_CASE("a removed op is listed, and its users compare through the value map") {
  std::string without = replaced(kSmall, "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : "
                                         "(builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n", "");
  without = replaced(without, "(%1) {", "(%0) {");
  Pair pair = parsePair(kSmall, without);
  ProgramDiff d = diff(pair);
  REQUIRE(d.changes.size() == 2);
  CHECK(d.changes[0].kind == Kind::Removed);
  CHECK(pair.before.source->lineCol(d.changes[0].before->location()).line == 3);
  CHECK(d.changes[1].kind == Kind::Changed);
  CHECK(d.changes[1].differences == std::vector<std::string>{"operand 0"});
  std::string listing = formatDiff(d, *pair.before.source, *pair.after.source);
  CHECK(listing.rfind("old: a.ir\nnew: b.ir\nremoved pd_op.relu\n  old 3 |     (%1) = \"pd_op.relu\"", 0) == 0);
  CHECK(listing.find("changed pd_op.relu: operand 0\n  old 4 |     (%2) = \"pd_op.relu\" (%1)") != std::string::npos);
  CHECK(listing.find("\n  new 3 |     (%2) = \"pd_op.relu\" (%0)") != std::string::npos);
  CHECK(listing.find("@@") == std::string::npos);
}

TEST_CASE("ops inside regions are diffed against the matching region") {
  const std::string withIf =
      "{\n"
      "    (%0) = \"pd_op.data\" () {} : () -> builtin.tensor<b>\n"
      "    (%1) = \"pd_op.if\" (%0) {} -> builtin.tensor<f32> {\n"
      "        (%2) = \"pd_op.full\" () {value:1} : () -> builtin.tensor<f32>\n"
      "        () = \"cf.yield\" (%2) {} : (builtin.tensor<f32>) -> \n"
      "    } else {\n"
      "        (%3) = \"pd_op.full\" () {value:2} : () -> builtin.tensor<f32>\n"
      "        () = \"cf.yield\" (%3) {} : (builtin.tensor<f32>) -> \n"
      "    }\n"
      "}\n";
  Pair pair = parsePair(withIf, replaced(withIf, "{value:2}", "{value:3}"));
  ProgramDiff d = diff(pair);
  REQUIRE(d.changes.size() == 1);
  CHECK(pair.after.source->lineCol(d.changes[0].after->location()).line == 7);
  CHECK(d.changes[0].differences == std::vector<std::string>{"attribute value"});
  CHECK(d.beforeOps == 6);
}

}  // namespace reshardctl
