#include <doctest/doctest.h>

#include "syntax/program_finder.h"

namespace reshardctl {

namespace {

std::string_view textOf(std::string_view log, const FoundProgram& p) { return log.substr(p.begin, p.end - p.begin); }

const char* kDump =
    "{\n"
    "    (%0) = \"pd_op.data\" () {} : () -> pd_dist.tensor<8xf32, mesh_shape:[2],dims_mappings:[-1]>\n"
    "    (%1) = \"pd_op.if\" (%0) {} -> tensor<f32> {\n"
    "        () = \"cf.yield\" (%0) {} : (tensor<f32>) -> \n"
    "    } else {\n"
    "        () = \"cf.yield\" (%0) {} : (tensor<f32>) -> \n"
    "    }\n"
    "}\n";

}  // namespace

TEST_CASE("a plain dump is one program: the whole file") {
  std::vector<FoundProgram> found = findPrograms(kDump);
  REQUIRE(found.size() == 1);
  CHECK(found[0].begin == 0);
  CHECK(found[0].end == std::string_view(kDump).size());
  CHECK(found[0].line == 1);
  CHECK(found[0].endLine == 8);
  CHECK(found[0].opCount == 4);  // the if's blocks' ops included
  CHECK(found[0].distributed);
  CHECK(found[0].label.empty());
  CHECK(found[0].closed);
}

TEST_CASE("programs among log lines: labels, glog prefixes, banners, module lines, captions") {
  std::string log =
      "I1130 10:00:01.123456 41234 pd_op_to_kernel_pass.cc:212] IR before lowering = {\n"  // 1
      "    (%0) = \"pd_op.full\" () {} : () -> tensor<f32>\n"
      "}\n"
      "W1130 10:00:02.000001  7 dist.cc:9] some warning {\n"  // 4: not followed by an op
      "and a line of text\n"
      "===-------------------------------------------------------------------------===\n"  // 6
      "        IRPrinting on builtin.module after build_cinn_pass pass\n"
      "===-------------------------------------------------------------------------===\n"
      "\n"
      "() = \"builtin.module\" [id:181] () {program:0x55e308966350} : () -> \n"  // 10
      "{\n"
      " (%0) = \"pd_op.full\" () {} : () -> tensor<f32>\n"
      "}\n"
      "\n"
      "ForwardProgram is :\n"  // 15
      "{\n"
      "}\n"
      "after-apply-access_topo_pass {\n"  // 18
      "    (%0) = \"pd_op.full\" () {} : () -> tensor<f32>\n"
      "}   \n"
      "    (%5) = \"pd_op.if\" (%4) {} -> tensor<f32> {\n"  // 21: an op printed alone
      "{\n"                                                  // 22: JSON, not a program
      "  \"a\": 1\n"
      "}\n";
  std::vector<FoundProgram> found = findPrograms(log);
  REQUIRE(found.size() == 4);

  CHECK(found[0].line == 1);
  CHECK(found[0].label == "IR before lowering");
  CHECK(found[0].pass.empty());
  CHECK(textOf(log, found[0]).substr(0, 2) == "{\n");
  CHECK(found[0].opCount == 1);
  CHECK_FALSE(found[0].distributed);

  CHECK(found[1].line == 10);  // the module line belongs to the program
  CHECK(textOf(log, found[1]).substr(0, 6) == "() = \"");
  CHECK(found[1].endLine == 13);
  CHECK(found[1].label == "IRPrinting on builtin.module after build_cinn_pass pass");
  CHECK(found[1].pass == "build_cinn_pass");

  CHECK(found[2].line == 16);
  CHECK(found[2].label == "ForwardProgram is");
  CHECK(found[2].opCount == 0);

  CHECK(found[3].line == 18);
  CHECK(found[3].label == "after-apply-access_topo_pass");
  CHECK(found[3].pass == "access_topo_pass");
  CHECK(textOf(log, found[3]) == "{\n    (%0) = \"pd_op.full\" () {} : () -> tensor<f32>\n}   \n");
}

TEST_CASE("a program cut short runs to the end of the file") {
  std::string log = "text\n{\n    (%0) = \"a.b\" () {} : () -> tensor<f32>\n    (%1) = ";
  std::vector<FoundProgram> found = findPrograms(log);
  REQUIRE(found.size() == 1);
  CHECK_FALSE(found[0].closed);
  CHECK(found[0].begin == 5);
  CHECK(found[0].end == log.size());
}

TEST_CASE("text after the closing brace is left out of the program") {
  std::string log = "{\n}  // end\n";
  std::vector<FoundProgram> found = findPrograms(log);
  REQUIRE(found.size() == 1);
  CHECK(textOf(log, found[0]) == "{\n}");
}

TEST_CASE("glog prefixes") {
  CHECK(glogPrefixLength("I1130 10:00:01.123456 41234 file.cc:212] msg") == 41);
  CHECK(glogPrefixLength("E20241130 10:00:01.123456  9 a/b.cc:1] x") == 39);
  CHECK(glogPrefixLength("I1130 text") == 0);
  CHECK(glogPrefixLength("{") == 0);
  CHECK(glogPrefixLength("I1130 10:00:01.123456 41234 file.cc] msg") == 0);
}

TEST_CASE("pass names in labels") {
  CHECK(passNameOf("IRPrinting on builtin.module before apply_partition_pass pass") == "apply_partition_pass");
  CHECK(passNameOf("IR after Reshard Pass") == "Reshard");
  CHECK(passNameOf("before-apply-fuse_pass") == "fuse_pass");
  CHECK(passNameOf("IR before lowering").empty());
  CHECK(passNameOf("IRPrinting on builtin.module original program").empty());
}

TEST_CASE("a label says whether its program was printed before or after the pass") {
  CHECK(passStageOf("IRPrinting on builtin.module before apply_partition_pass pass") == PassStage::Before);
  CHECK(passStageOf("IRPrinting on builtin.module after apply_partition_pass pass") == PassStage::After);
  CHECK(passStageOf("IR before DistToDense Pass") == PassStage::Before);
  CHECK(passStageOf("after-apply-fuse_pass") == PassStage::After);
  CHECK(passStageOf("before-apply-fuse_pass") == PassStage::Before);
  CHECK(passStageOf("IR before lowering") == PassStage::None);
  CHECK(passStageOf("") == PassStage::None);
}

}  // namespace reshardctl

namespace reshardctl {

namespace {

std::string withPrefix(std::string_view text, std::string_view prefix) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    out.append(prefix).append(text.substr(at, nl - at + 1));
    at = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("a prefix on every line of a program (ctest, a launcher) is found, and the label follows it") {
  for (std::string_view prefix : {"332: ", "[rank0]: "}) {
    CAPTURE(prefix);
    std::string log = withPrefix(std::string("ForwardProgram is :\n") + kDump + "done\n", prefix);
    std::vector<FoundProgram> found = findPrograms(log);
    REQUIRE(found.size() == 1);
    CHECK(found[0].label == "ForwardProgram is");
    CHECK(found[0].line == 2);
    CHECK(found[0].endLine == 9);
    CHECK(found[0].opCount == 4);
    CHECK(log.substr(found[0].begin, 1) == "{");
    CHECK(log.substr(found[0].end - prefix.size() - 2, prefix.size() + 2) == std::string(prefix) + "}\n");
  }
  std::string labelled = withPrefix(std::string("IR before lowering = ") + kDump, "332: ");
  std::vector<FoundProgram> found = findPrograms(labelled);
  REQUIRE(found.size() == 1);
  CHECK(found[0].label == "IR before lowering");
}

TEST_CASE("a prefixed module line and banner belong to the prefixed program after them") {
  for (std::string_view prefix : {"332: ", "[rank0]: "}) {
    CAPTURE(prefix);
    const std::string module = "() = \"builtin.module\" () {program:0x55e308966350} : () -> \n";
    std::string log = "launcher started\n" +
                      withPrefix(std::string("===-----------===\n  IRPrinting on builtin.module after "
                                             "apply_partition_pass pass\n===-----------===\n") +
                                     module + kDump,
                                 prefix) +
                      "done\n";
    std::vector<FoundProgram> found = findPrograms(log);
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 5);  // the module line
    CHECK(log.substr(found[0].begin, module.size()) == module);
    CHECK(found[0].pass == "apply_partition_pass");
    CHECK(found[0].label == "IRPrinting on builtin.module after apply_partition_pass pass");
  }
  // A module line with another prefix than the program's stays outside it.
  std::string mixed = "[rank1]: () = \"builtin.module\" () {program:0x1} : () -> \n" + withPrefix(kDump, "[rank0]: ");
  std::vector<FoundProgram> found = findPrograms(mixed);
  REQUIRE(found.size() == 1);
  CHECK(found[0].line == 2);
}

TEST_CASE("--fragment: a text of op lines is listed whole") {
  const std::string text = "    (%2) = \"pd_op.relu\" (%0) {} : (pd_dist.tensor<4xf32, mesh_shape:[2],dims_mappings:[-1]>) -> tensor<4xf32>\n"
                           "    ...\n"
                           "    (%3) = \"pd_op.exp\" (%2) {} : (tensor<4xf32>) -> tensor<4xf32>\n";
  const FoundProgram whole = wholeTextAsFragment(text);
  CHECK(whole.begin == 0);
  CHECK(whole.end == text.size());
  CHECK(whole.line == 1);
  CHECK(whole.endLine == 3);
  CHECK(whole.opCount == 2);
  CHECK(whole.distributed);
  CHECK(whole.label == "(fragment)");
}

TEST_CASE("a glog prefix on every line, its time different on each, is found") {
  std::string log;
  int line = 0;
  for (std::string_view text = kDump; !text.empty(); ++line) {
    size_t nl = text.find('\n');
    log += "I1201 12:00:0" + std::to_string(line) + ".123456 1234 ir_printer.cc:12] ";
    log.append(text.substr(0, nl + 1));
    text.remove_prefix(nl + 1);
  }
  std::vector<FoundProgram> found = findPrograms(log);
  REQUIRE(found.size() == 1);
  CHECK(found[0].opCount == 4);
  CHECK(found[0].endLine == 8);
  CHECK(found[0].end == log.size());
}

}  // namespace reshardctl

namespace reshardctl {

TEST_CASE("why a text holds no program, in one line") {
  CHECK(whyNoProgram("hello\nworld\n") == "no line ends in '{'");
  CHECK(whyNoProgram("config = {\nlr: 0.1\n}\n") == "no line ending in '{' is followed by op lines");
  CHECK(whyNoProgram("I1201 12:00:00.000001 7 a.cc:1] run:\n"
                     "    (%5) = \"pd_op.relu\" (%4) {} : (f32) -> f32\n")
            .find("--fragment") != std::string::npos);
}

}  // namespace reshardctl
