#include "interp/budget/loop_trip_count.h"

#include <string>

#include <doctest/doctest.h>

#include "support/op_names.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

constexpr int64_t kCap = 4096;

// A counted loop: counter from `start`, `step` a trip, while `compare`(counter, limit).
std::string countedLoop(const std::string& start, const std::string& limit, const std::string& step,
                        const std::string& compare = "less_than", const std::string& firstCondition = "") {
  const std::string tensor = "builtin.tensor<1xi64>";
  const std::string full = "\"pd_op.full\" () {dtype:(pd_op.DataType)int64,shape:(pd_op.IntArray)[1],value:(Float)";
  std::string text = "{\n";
  text += "    (%0) = " + full + start + "} : () -> " + tensor + "\n";
  text += "    (%1) = " + full + limit + "} : () -> " + tensor + "\n";
  text += firstCondition.empty() ? "    (%2) = \"pd_op." + compare + "\" (%0, %1) {} : (" + tensor + ", " + tensor +
                                       ") -> builtin.tensor<1xb>\n"
                                 : "    (%2) = \"pd_op.full\" () {dtype:(pd_op.DataType)bool,value:(Float)" +
                                       firstCondition + "} : () -> builtin.tensor<1xb>\n";
  text += "    (%3) = \"pd_op.while\" (cond=%2, inputs=%0) { \n    ^%arg_0\n";
  text += "        (%4) = \"pd_op.increment_\" (%arg_0) {value:(Float)" + step + "} : (" + tensor + ") -> " + tensor + "\n";
  text += "        (%5) = \"pd_op." + compare + "\" (%4, %1) {} : (" + tensor + ", " + tensor + ") -> builtin.tensor<1xb>\n";
  text += "        () = \"cf.yield\" (%5, %4) {} : (builtin.tensor<1xb>, " + tensor + ") -> \n    }\n}\n";
  return text;
}

std::optional<int64_t> tripsOf(const std::string& text) {
  testing::Parsed parsed = testing::parse(text, "loop.ir");
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  for (const Operation* op : *parsed.program->body())
    if (op->name() == kWhileOp) return staticTripCount(*op, kCap);
  FAIL("no pd_op.while");
  return std::nullopt;
}

}  // namespace

TEST_CASE("loop trip count: counted loops of constants") {
  CHECK(tripsOf(countedLoop("0", "3", "1")) == 3);
  CHECK(tripsOf(countedLoop("0", "10", "3")) == 4);  // 0 3 6 9
  CHECK(tripsOf(countedLoop("5", "3", "1")) == 0);   // the first test fails
  CHECK(tripsOf(countedLoop("0", "3", "1", "less_equal")) == 4);
  CHECK(tripsOf(countedLoop("10", "0", "-2", "greater_than")) == 5);
  CHECK(tripsOf(countedLoop("0", "4", "1", "not_equal")) == 4);
  CHECK(tripsOf(countedLoop("0", "3", "1", "less_than", "0")) == 0);  // a constant false first condition
  CHECK(tripsOf(countedLoop("0", "3", "1", "less_than", "1")) == 3);
}

TEST_CASE("loop trip count: past the cap, or never ending, counts cap + 1") {
  CHECK(tripsOf(countedLoop("0", std::to_string(kCap), "1")) == kCap);
  CHECK(tripsOf(countedLoop("0", std::to_string(kCap + 1), "1")) == kCap + 1);
  CHECK(tripsOf(countedLoop("0", "1e12", "1")) == kCap + 1);  // computed, not run
  CHECK(tripsOf(countedLoop("0", "3", "0")) == kCap + 1);  // a step of 0: forever
  CHECK(tripsOf(countedLoop("0", "3", "-1")) == kCap + 1);  // moving away from the limit
  CHECK(tripsOf(countedLoop("0", "5", "2", "not_equal")) == kCap + 1);  // steps over the limit
}

TEST_CASE("loop trip count: a condition of data is not static") {
  const std::string text =
      "{\n"
      "    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)bool,name:\"flag\",shape:(pd_op.IntArray)[1]} : () -> builtin.tensor<1xb>\n"
      "    (%1) = \"pd_op.while\" (cond=%0, inputs=%0) { \n    ^%arg_0\n"
      "        () = \"cf.yield\" (%arg_0, %arg_0) {} : (builtin.tensor<1xb>, builtin.tensor<1xb>) -> \n    }\n}\n";
  CHECK_FALSE(tripsOf(text).has_value());
}

}  // namespace reshardctl
