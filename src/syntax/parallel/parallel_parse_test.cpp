#include "syntax/parallel/parallel_parse.h"

#include <doctest/doctest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "ir/source.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

using namespace reshardctl;

namespace {

struct Read {
  std::string printed;
  std::string graph;  // ids, types, every use list in order, which dist attrs are shared
  std::string diagnostics;
  size_t chunks = 1;
  size_t topLevelOps = 0;
};

Read readWith(const std::string& text, unsigned jobs, size_t opsPerChunk) {
  SourceFile source = SourceFile::fromString("test.ir", text);
  DiagnosticEngine diagnostics(&source);
  ParseOptions options;
  options.jobs = jobs;
  options.opsPerChunk = opsPerChunk;
  ParseResult result = parseProgram(source, diagnostics, 0, text.size(), options);
  Read read;
  read.chunks = result.chunks;
  read.diagnostics = diagnostics.render();
  if (!result.program) return read;
  Program& program = *result.program;
  read.printed = printProgramToString(program);
  read.graph = checkGraph(program) + fmt::format(" values {}\n", program.valueCount());
  for (const Operation* op : *program.body()) read.topLevelOps += op != nullptr;
  CHECK(program.body()->size() == read.topLevelOps);  // kept through the stitch's joins
  // Each dist attr by the order it was first met: ops and values share one
  // where the serial parse shares one (the partition pass's memo keys on it).
  std::unordered_map<const void*, size_t> firstMet;
  auto sharing = [&](const void* attr) {
    return attr ? std::to_string(firstMet.try_emplace(attr, firstMet.size()).first->second) : std::string("-");
  };
  walkOps(*program.body(), [&](const Operation* op) {
    read.graph += fmt::format("op dist {}\n", sharing(op->distAttr()));
    for (size_t i = 0; i < op->numResults(); ++i) {
      const Value* v = op->result(i);
      read.graph += fmt::format("{} {} {} dist {}:", v->id, v->type ? v->type->text : "-",
                                !v->type || program.types().find(v->type->text) == v->type, sharing(v->dist));
      for (const Operand* use = v->firstUse; use; use = use->nextUse())
        read.graph += fmt::format(" {}", use->owner()->numResults() ? use->owner()->result(0)->id : 0);
      read.graph += "\n";
    }
  });
  return read;
}

// Chunks of every size from 1 to 7 ops read `text` as one serial parse does.
void requireSameAsSerial(const std::string& text, bool mustStitch) {
  Read serial = readWith(text, 1, 0);
  for (size_t ops = 1; ops <= 7; ++ops) {
    CAPTURE(ops);
    Read chunked = readWith(text, 2, ops);
    if (mustStitch && ops < serial.topLevelOps) CHECK(chunked.chunks > 1);
    CHECK(chunked.diagnostics == serial.diagnostics);
    CHECK(chunked.printed == serial.printed);
    CHECK(chunked.graph == serial.graph);
  }
}

}  // namespace

TEST_CASE("parallel parse: a bench program in chunks is the serial parse, byte for byte and use for use") {
  requireSameAsSerial(testing::benchInput(300, false), true);
  requireSameAsSerial(testing::benchInput(300, true), true);
  const std::string large = testing::benchInput(3000, true);
  Read serial = readWith(large, 1, 0);
  Read bySize = readWith(large, 3, 0);  // cut by size, as -j 3 does
  CHECK(bySize.chunks == 3);
  CHECK(bySize.printed == serial.printed);
  CHECK(bySize.graph == serial.graph);
}

TEST_CASE("parallel parse: uses across chunks are linked in the serial order, and a while result typed there") {
  const std::string text =
      "{\n"
      "    (%0) = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n"
      "    (%1) = \"pd_op.relu\" (%0) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
      "    (%2) = \"pd_op.while\" (cond=%1, inputs=%0) { ^%arg_0\n"
      "        () = \"cf.yield\" (%arg_0) {} : (builtin.tensor<4xf32>) -> \n"
      "    }\n"
      "    (%3) = \"pd_op.add\" (%0, %2) {} : (builtin.tensor<4xf32>, builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
      "    (%4) = \"pd_op.add\" (%0, %3) {} : (builtin.tensor<4xf32>, builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
      "}\n";
  requireSameAsSerial(text, true);
}

TEST_CASE("parallel parse: no cut where an empty line comes before an op line (the op before decides if it is kept)") {
  // After a generic region op the first empty line is the printer's
  // (parsing::followsGenericRegionOp); elsewhere it is kept.
  const std::string text =
      "{\n"
      "    (%0) = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n"
      "    (%1) = \"a.region\" () {} : () -> builtin.tensor<4xf32>\n"
      "    {\n"
      "        () = \"cf.yield\" (%0) {} : (builtin.tensor<4xf32>) -> \n"
      "    }\n"
      "\n"
      "    (%2) = \"pd_op.relu\" (%1) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
      "\n"
      "    (%3) = \"pd_op.relu\" (%2) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
      "    (%4) = \"pd_op.relu\" (%3) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
      "}\n";
  requireSameAsSerial(text, false);
  CHECK(readWith(text, 1, 0).printed == text);
}

TEST_CASE("parallel parse: whatever a chunk would report, the serial parse reads the program and reports it") {
  const std::string body =
      "    (%0) = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n"
      "    (%1) = \"pd_op.relu\" (%0) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n";
  for (const std::string& bad : {
           std::string("    (%2) = \"pd_op.relu\" (%9) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"),
           std::string("    (%2) = \"pd_op.relu\" (%0) {} : (builtin.tensor<8xf32>) -> builtin.tensor<4xf32>\n"),
           std::string("    (%1) = \"pd_op.relu\" (%0) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"),
           std::string("    (%2) = \"pd_op.relu\" (%3) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
                       "    (%3) = \"pd_op.relu\" (%0) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"),
           std::string("    (%2) = \"pd_op.relu\" (%0 {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"),
       }) {
    CAPTURE(bad);
    const std::string text = "{\n" + body + bad + body.substr(body.find('\n') + 1).replace(6, 1, "7") + "}\n";
    Read serial = readWith(text, 1, 0);
    CHECK(!serial.diagnostics.empty());
    requireSameAsSerial(text, false);
  }
}
