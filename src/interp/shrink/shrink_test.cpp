#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "exec/execution_backend.h"
#include "interp/shrink/dim_classes.h"
#include "interp/shrink/shrink.h"
#include "interp/validation.h"
#include "passes/partition_pass.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// What validate found: each divergence's line and kind, and the counts.
struct Found {
  std::vector<std::pair<size_t, std::string>> divergences;
  size_t matched = 0;
  size_t total = 0;
  friend bool operator==(const Found&, const Found&) = default;
};

Found validateParsed(testing::Parsed& parsed, bool apply, bool all) {
  REQUIRE(parsed.program);
  if (apply) REQUIRE(applyPartitionPass(*parsed.program, *parsed.diagnostics).ok);
  ValidateOptions options;
  options.all = all;
  auto backend = makeCpuBackend();
  const ValidationOutcome outcome = validateProgram(*parsed.program, *backend, options);
  Found found{{}, outcome.matchedOps, outcome.totalOps};
  for (const Divergence& d : outcome.divergences)
    found.divergences.push_back({parsed.source->lineCol(d.op->location()).line, d.kind});
  return found;
}

// The program at `up`× its size, as text (a real-sized copy to shrink).
std::string grown(const std::string& text, int64_t up) {
  testing::Parsed parsed = testing::parse(text);
  REQUIRE(parsed.program);
  const ShrinkResult result = resizeProgram(*parsed.program, {up, 1});
  REQUIRE_MESSAGE(result.ok, result.error);
  return printProgramToString(*parsed.program);
}

struct Case {
  const char* path;
  bool apply;
  bool all;
};

// Every wrongly annotated program of the suite, and the ones that match.
const Case kCases[] = {
    {"tests/golden/validate/all_divergences.ir", true, true},
    {"tests/golden/validate/if_split_condition.ir", false, false},
    {"tests/golden/validate/llama_block_tp.ir", false, false},
    {"tests/golden/validate/llama_block_tp.ir", true, false},
    {"tests/golden/validate/gpt_block_tp.ir", true, false},
    {"tests/golden/validate/wrong_column_declared_row.ir", true, false},
    {"tests/golden/validate/wrong_matmul_claims_replicated.ir", true, false},
    {"tests/golden/validate/wrong_tp_mean_partial_sum.ir", true, false},
    {"tests/golden/validate/while_loop.ir", false, false},
    {"samples/seed_mlp_before.ir", false, false},
    {"samples/seed_mlp_before.ir", true, false},
    {"samples/seed_mlp_after.ir", false, false},
    {"samples/tp_mlp_2x2_before.ir", false, false},
    {"samples/tp_mlp_2x2_before.ir", true, false},
};

}  // namespace

TEST_CASE("a shrink of a scaled-up copy finds what validate finds at the same ops") {
  for (const Case& c : kCases) {
    CAPTURE(c.path);
    CAPTURE(c.apply);
    const std::string text = testing::readRepoFile(c.path);
    testing::Parsed original = testing::parse(text, c.path);
    const Found expected = validateParsed(original, c.apply, c.all);

    testing::Parsed big = testing::parse(grown(text, 8), c.path);
    REQUIRE(big.program);
    const ShrinkOutcome shrunk = shrinkProgram(*big.program, {ShrinkRequest::Mode::Factor, 8}, *big.diagnostics);
    REQUIRE_MESSAGE(shrunk.ok, big.errors());
    CHECK(shrunk.line.starts_with("at 1/8 scale: "));
    CHECK(validateParsed(big, c.apply, c.all) == expected);
  }
}

TEST_CASE("a growth and a shrink by the same factor give back an MLP's text") {
  // (Through a reshape's groups the way back may share the factor out differently: heads × head dim.)
  const std::string text = testing::readRepoFile("samples/tp_mlp_2x2_before.ir");
  testing::Parsed big = testing::parse(grown(text, 4));
  REQUIRE(big.program);
  CHECK(printProgramToString(*big.program) != printProgramToString(*testing::parse(text).program));
  REQUIRE(resizeProgram(*big.program, {1, 4}).ok);
  CHECK(printProgramToString(*big.program) == printProgramToString(*testing::parse(text).program));
}

TEST_CASE("one logical dim: matmul's contraction, reshape's groups, and the shape attributes") {
  const std::string text = testing::readRepoFile("tests/golden/validate/llama_block_tp.ir");
  testing::Parsed parsed = testing::parse(text);
  REQUIRE(parsed.program);
  const DimClasses dims = DimClasses::derive(*parsed.program);
  // %17 = rms_norm(x) [2,4,16] and %4 = q_proj.w [16,16]: the hidden dim is one class with the weights' rows.
  const Operation* rmsNorm = nullptr;
  const Operation* qProj = nullptr;
  walkOps(*parsed.program->body(), [&](const Operation* op) {
    if (!rmsNorm && op->name() == "pd_op.rms_norm") rmsNorm = op;
    if (!qProj && op->name() == "pd_op.matmul") qProj = op;
  });
  REQUIRE(qProj);
  const int32_t x = dims.valueBase(qProj->operandValue(0));
  const int32_t w = dims.valueBase(qProj->operandValue(1));
  CHECK(dims.find(x + 2) == dims.find(w));
  CHECK(dims.find(x) != dims.find(x + 1));  // batch 2 and sequence 4 are not the hidden dim
  // The reshape 2x4x16 → 2x4x2x8 keeps 16 = 2×8 as a product relation.
  bool sawProduct = false;
  for (const DimRelation& r : dims.relations())
    if (r.kind == DimRelation::Kind::Product && r.op->name() == "pd_op.reshape") sawProduct = true;
  CHECK(sawProduct);
  CHECK_FALSE(dims.attributeSlots().empty());  // full_int_array's shape and data's shape
}

TEST_CASE("the grads of transpose and reshape relate their dims as the forward ops do, backwards") {
  const std::string text = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[6,8],stop_gradient:[false]} : () -> builtin.tensor<6x8xf32>
    (%1) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],value:[(Int64)6,(Int64)2,(Int64)4]} : () -> builtin.tensor<3xi64>
    (%2) = "pd_op.reshape" (%0, %1) {stop_gradient:[false]} : (builtin.tensor<6x8xf32>, builtin.tensor<3xi64>) -> builtin.tensor<6x2x4xf32>
    (%3) = "pd_op.transpose" (%2) {perm:[(Int32)0,(Int32)2,(Int32)1],stop_gradient:[false]} : (builtin.tensor<6x2x4xf32>) -> builtin.tensor<6x4x2xf32>
    (%4) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"g",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[6,4,2],stop_gradient:[false]} : () -> builtin.tensor<6x4x2xf32>
    (%5) = "pd_op.transpose_grad" (%4) {perm:[(Int32)0,(Int32)2,(Int32)1],stop_gradient:[false]} : (builtin.tensor<6x4x2xf32>) -> builtin.tensor<6x2x4xf32>
    (%6) = "pd_op.reshape_grad" (%0, %5) {stop_gradient:[false]} : (builtin.tensor<6x8xf32>, builtin.tensor<6x2x4xf32>) -> builtin.tensor<6x8xf32>
})";
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  const DimClasses dims = DimClasses::derive(*parsed.program);
  std::vector<int32_t> base;  // by op: its first result's first slot
  walkOps(*parsed.program->body(), [&](const Operation* op) { base.push_back(dims.valueBase(op->result(0))); });
  // x_grad[perm[i]] = out_grad[i] (aligned from the end, as elementwise ops are, nothing would match).
  CHECK(dims.find(base[5] + 1) == dims.find(base[4] + 2));
  CHECK(dims.find(base[5] + 2) == dims.find(base[4] + 1));
  // x_grad is x's shape; out_grad reshaped back keeps 8 = 2×4.
  CHECK(dims.find(base[6] + 1) == dims.find(base[0] + 1));
  size_t products = 0;
  for (const DimRelation& r : dims.relations())
    if (r.kind == DimRelation::Kind::Product && r.op->name() == "pd_op.reshape_grad") ++products;
  CHECK(products == 1);
  // So a shrink keeps them together: 8 → 4 = 2×2 on both sides, and the program verifies.
  const ShrinkOutcome outcome = shrinkProgram(*parsed.program, {ShrinkRequest::Mode::Factor, 2}, *parsed.diagnostics);
  CHECK_MESSAGE(outcome.ok, parsed.errors());
}

TEST_CASE("sharded dims stay divisible by their mesh dims; uneven ones stay uneven the same way") {
  const std::string text = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",op_dist_attr:{mesh:{shape:[4],process_ids:[0,1,2,3]},result(0):{dims_maping:[0,-1]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[64,30],stop_gradient:[true]} : () -> pd_dist.tensor<64x30xf32, mesh_shape:[4],dims_mappings:[0,-1]>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"y",op_dist_attr:{mesh:{shape:[4],process_ids:[0,1,2,3]},result(0):{dims_maping:[-1,0]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[30,66],stop_gradient:[true]} : () -> pd_dist.tensor<30x66xf32, mesh_shape:[4],dims_mappings:[-1,0]>
})";
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  const ShrinkResult result = resizeProgram(*parsed.program, {1, 16});
  REQUIRE(result.ok);
  const std::string shrunk = printProgramToString(*parsed.program);
  // 64 over 4 ranks: 64/16 = 4 stays a multiple of 4. 30: 30/2 = 15 (16 does not divide it).
  // 66 over 4 (remainder 2): 66/2 = 33 leaves 1, 66/3 = 22 leaves 2... only divisors of 16: 66 stays.
  CHECK(shrunk.find("tensor<4x15xf32") != std::string::npos);
  CHECK(shrunk.find("tensor<15x66xf32") != std::string::npos);
  CHECK(shrunk.find("shape:(pd_op.IntArray)[4,15]") != std::string::npos);
  CHECK(shrinkLine(result, {1, 16}) == "at 1/16 scale: 64→4, 30→15");
}

TEST_CASE("a relation the sizes cannot keep names its op and changes nothing") {
  // 16 → 4x4 makes the 4s one class (1/4: 16 → 4, so 4 → 2); the slice pins %5's 8, so 8 → 2x4 asks the
  // 2 for 4, more than its size.
  const std::string text = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[16],stop_gradient:[true]} : () -> builtin.tensor<16xf32>
    (%1) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],value:[(Int64)4,(Int64)4]} : () -> builtin.tensor<2xi64>
    (%2) = "pd_op.reshape" (%0, %1) {stop_gradient:[true]} : (builtin.tensor<16xf32>, builtin.tensor<2xi64>) -> builtin.tensor<4x4xf32>
    (%3) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"z",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[8],stop_gradient:[true]} : () -> builtin.tensor<8xf32>
    (%4) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],value:[(Int64)0]} : () -> builtin.tensor<1xi64>
    (%5) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],value:[(Int64)2]} : () -> builtin.tensor<1xi64>
    (%6) = "pd_op.slice" (%3, %4, %5) {axes:[(Int64)0],decrease_axis:[],infer_flags:[(Int64)1],stop_gradient:[true]} : (builtin.tensor<8xf32>, builtin.tensor<1xi64>, builtin.tensor<1xi64>) -> builtin.tensor<2xf32>
    (%7) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],value:[(Int64)2,(Int64)4]} : () -> builtin.tensor<2xi64>
    (%8) = "pd_op.reshape" (%3, %7) {stop_gradient:[true]} : (builtin.tensor<8xf32>, builtin.tensor<2xi64>) -> builtin.tensor<2x4xf32>
    (%9) = "pd_op.add" (%8, %2) {stop_gradient:[true]} : (builtin.tensor<2x4xf32>, builtin.tensor<4x4xf32>) -> builtin.tensor<4x4xf32>
})";
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  const std::string before = printProgramToString(*parsed.program);
  const ShrinkOutcome outcome = shrinkProgram(*parsed.program, {ShrinkRequest::Mode::Factor, 4}, *parsed.diagnostics);
  CHECK_FALSE(outcome.ok);
  CHECK(printProgramToString(*parsed.program) == before);
  CHECK(parsed.errors().find("test.ir:10:5: error: cannot shrink the program 1/4: cannot keep pd_op.reshape's dims 8 = 2×4") !=
        std::string::npos);
  // --shrink=off leaves it alone.
  CHECK(shrinkProgram(*parsed.program, {ShrinkRequest::Mode::Off, 1}, *parsed.diagnostics).ok);
}

TEST_CASE("--shrink=auto shrinks until the program fits the work budget as well as the element budget") {
  // A 64x64 matmul: few elements, but its work (elements times the contracted 64) is what a budget
  // refuses; each halving of every dim divides it by about 8.
  const std::string text = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[64,64],stop_gradient:[true]} : () -> builtin.tensor<64x64xf32>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"w",place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[64,64],stop_gradient:[true]} : () -> builtin.tensor<64x64xf32>
    (%2) = "pd_op.matmul" (%0, %1) {stop_gradient:[true],transpose_x:false,transpose_y:false} : (builtin.tensor<64x64xf32>, builtin.tensor<64x64xf32>) -> builtin.tensor<64x64xf32>
})";
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  const uint64_t work = programCost(*parsed.program, 4, 1).work;
  CHECK(work == 2 * (1000 + 4096) * 2 + 2 * (1000 + 4096 * 64));
  AutoShrinkBudget request;
  CHECK(autoShrinkFactor(*parsed.program, request) == 1);  // the default budget holds it
  request.budget.maxWork = 100'000;  // 1/2: 32x32, 2*(1000+1024*32) + the data = 75,592
  CHECK(autoShrinkFactor(*parsed.program, request) == 2);
  request.budget.maxWork = 20'000;  // 1/4: 16x16, 10,192 + 5,024
  CHECK(autoShrinkFactor(*parsed.program, request) == 4);
  request.budget.maxWork = 0;  // no work limit: memory alone (3 values of 4096 doubles, serial and once more:
  request.budget.maxMemoryBytes = 60'000;  // 192 KiB at full size, 48 KiB at 1/2)
  CHECK(autoShrinkFactor(*parsed.program, request) == 2);
  // What validate runs: the shrunk program and the report's line.
  request.budget = {20'000, 0};
  const ShrinkOutcome outcome = shrinkProgram(*parsed.program, {}, *parsed.diagnostics, request);
  CHECK(outcome.ok);
  CHECK(outcome.factor == 4);
  CHECK(outcome.line == "at 1/4 scale: 64→16");
  CHECK(programCost(*parsed.program, 4, 1).work <= 20'000);
}

TEST_CASE("--shrink=auto fits a replicated tensor on 4,096 ranks under --max-memory") {
  // 1024x1024 replicated on 4,096 ranks: 4,097 copies of 2^20 doubles, twice (data and relu) = 68.7 GB;
  // 1/8 (128x128) holds 1.07 GB, under the default 4 GiB; 1/4 would hold 4.3 GB.
  std::string ids;
  for (int i = 0; i < 4096; ++i) ids += (i ? "," : "") + std::to_string(i);
  const std::string mesh = "mesh:{shape:[4096],process_ids:[" + ids + "]}";
  const std::string type = "pd_dist.tensor<1024x1024xf32, mesh_shape:[4096],dims_mappings:[-1,-1]>";
  const std::string text = "{\n    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",op_dist_attr:{" + mesh +
                           ",result(0):{dims_maping:[-1,-1]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)"
                           "[1024,1024],stop_gradient:[true]} : () -> " + type +
                           "\n    (%1) = \"pd_op.relu\" (%0) {op_dist_attr:{" + mesh +
                           ",operand(0):{dims_maping:[-1,-1]},result(0):{dims_maping:[-1,-1]}},stop_gradient:[true]} : (" +
                           type + ") -> " + type + "\n}\n";
  testing::Parsed parsed = testing::parse(text);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  CHECK(programCost(*parsed.program, 4, 1).bytes == uint64_t{2} * 4097 * (1 << 20) * 8);
  CHECK(autoShrinkFactor(*parsed.program, AutoShrinkBudget{}) == 8);
}

TEST_CASE("--shrink's text") {
  CHECK(parseShrinkRequest("")->mode == ShrinkRequest::Mode::Auto);
  CHECK(parseShrinkRequest("auto")->mode == ShrinkRequest::Mode::Auto);
  CHECK(parseShrinkRequest("off")->mode == ShrinkRequest::Mode::Off);
  CHECK(parseShrinkRequest("64")->factor == 64);
  CHECK_FALSE(parseShrinkRequest("0"));
  CHECK_FALSE(parseShrinkRequest("-2"));
  CHECK_FALSE(parseShrinkRequest("2x"));
  CHECK_FALSE(parseShrinkRequest("99999999999999999999"));
}

}  // namespace reshardctl
