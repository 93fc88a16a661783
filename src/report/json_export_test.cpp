#include <doctest/doctest.h>

#include "passes/partition_pass.h"
#include "report/json_export.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

using nlohmann::json;

// The export as a reader parses it. (tests/json_tests.cmake checks the
// command's output against schema/program.schema.json.)
json exportChecked(const testing::Parsed& parsed) {
  return json::parse(programToJson(*parsed.program, parsed.source.get()).dump());
}

const char* kRegions =
    "{\n"
    "    (%0) = \"pd_op.data\" () {} : () -> builtin.tensor<b>\n"
    "    (%1) = \"pd_op.if\" (%0) {} -> builtin.tensor<f32> {\n"
    "        (%2) = \"pd_op.full\" () {value:\"a,b\"} : () -> builtin.tensor<f32>\n"
    "        () = \"cf.yield\" (%2) {} : (builtin.tensor<f32>) -> \n"
    "    } else {\n"
    "        (%3) = \"pd_op.full\" () {} : () -> builtin.tensor<f32>\n"
    "        () = \"cf.yield\" (%3) {} : (builtin.tensor<f32>) -> \n"
    "    }\n"
    "}\n";

}  // namespace

TEST_CASE("the seed exports with lines, types and structured dist attrs") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_before.ir"), "seed.ir");
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  json exported = exportChecked(parsed);
  CHECK(exported["source"] == "seed.ir");
  REQUIRE(exported["ops"].size() == 26);
  const json& matmul = exported["ops"][8];  // (%8) = "pd_op.matmul" (%7, %1), line 10
  CHECK(matmul["name"] == "pd_op.matmul");
  CHECK(matmul["line"] == 10);
  CHECK(matmul["operands"][0]["name"] == "%7");
  CHECK(matmul["operands"][1]["type"] == "pd_dist.tensor<16x8xf32, mesh_shape:[2],dims_mappings:[0,-1]>");
  CHECK(matmul["attributes"]["transpose_x"] == "false");
  CHECK(matmul["dist_attr"]["mesh"] == json::parse(R"({"shape":[2],"process_ids":[0,1]})"));
  CHECK(matmul["dist_attr"]["results"][0]["partial"] ==
        json::parse(R"([{"mesh_dim":0,"reduce":"SUM"}])"));
  CHECK(matmul["results"][0]["dist"]["dims_mapping"] == json::parse("[-1,-1]"));
  const json& sgd = exported["ops"][24];
  CHECK(sgd["operands"][3] == json::parse(R"({"name":null,"type":null,"dist":null})"));
  CHECK(sgd["dist_attr"]["operands"][3].is_null());  // {null}
}

TEST_CASE("ops a pass created have no line") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("samples/seed_mlp_before.ir"));
  REQUIRE(parsed.program);
  REQUIRE(applyPartitionPass(*parsed.program, *parsed.diagnostics).inserted.size() == 2);
  json exported = exportChecked(parsed);
  CHECK(exported["ops"][9]["name"] == "dist_op.reshard");
  CHECK(exported["ops"][9]["line"].is_null());
  CHECK(exported["ops"][10]["operands"][0]["name"] == "%9");  // renumbered, as printed
}

TEST_CASE("nested blocks export inside their op") {
  testing::Parsed parsed = testing::parse(kRegions);
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  json exported = exportChecked(parsed);
  const json& ifOp = exported["ops"][1];
  REQUIRE(ifOp["regions"].size() == 2);
  CHECK(ifOp["regions"][0]["ops"][0]["line"] == 4);
  CHECK(ifOp["regions"][0]["ops"][0]["attributes"]["value"] == "\"a,b\"");
  CHECK(ifOp["regions"][1]["ops"][1]["name"] == "cf.yield");
  CHECK(ifOp["dist_attr"].is_null());
}

}  // namespace reshardctl

namespace reshardctl {

// Fuzzer finding: a string attribute with bytes that are not UTF-8 made
// nlohmann::json throw type_error 316 out of `print --emit=json`.
TEST_CASE("bytes that are not UTF-8 export as U+FFFD instead of throwing") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("tests/golden/json/invalid-utf8.ir"));
  REQUIRE_MESSAGE(parsed.program, parsed.errors());
  std::string text = programJsonText(*parsed.program, parsed.source.get());
  nlohmann::json exported = nlohmann::json::parse(text);
  CHECK(exported["ops"][0]["attributes"]["name"] == "\"caf\xEF\xBF\xBD \xEF\xBF\xBD\"");
}

}  // namespace reshardctl

namespace reshardctl {

namespace {
std::string streamed(const testing::Parsed& parsed) {
  std::string text;
  OutputSink sink([&](std::string_view chunk) { text += chunk; });
  CHECK(writeProgramJson(*parsed.program, parsed.source.get(), sink));
  return text;
}
}  // namespace

// `print --emit=json` streams one top-level op at a time, written by
// JsonWriter; the text must be exactly what nlohmann's dump(2) makes of the
// same document (goldens in tests/golden/json).
TEST_CASE("the streamed export is byte for byte nlohmann's dump of the document") {
  for (std::string text : {std::string(kRegions), testing::readRepoFile("samples/seed_mlp_before.ir"),
                           testing::readRepoFile("tests/golden/json/invalid-utf8.ir"),
                           testing::readRepoFile("tests/golden/pass/if_blocks.expected.ir"),
                           testing::readRepoFile("tests/golden/roundtrip/gen_d_features.ir"),
                           std::string("{\n}\n"),
                           std::string("{\n    ^kw:%kwarg_a\n    () = \"cf.yield\" (%kwarg_a) {} : "
                                       "(builtin.tensor<f32>) -> \n}\n")}) {
    testing::Parsed parsed = testing::parse(text);
    REQUIRE_MESSAGE(parsed.program, parsed.errors());
    const std::string exported = programJsonText(*parsed.program, parsed.source.get());
    CHECK(streamed(parsed) == exported);
    const std::string nlohmannDump =
        nlohmann::ordered_json::parse(exported).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    CHECK(exported == nlohmannDump);
  }
}

}  // namespace reshardctl
