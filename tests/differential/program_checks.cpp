// Parse, print round trip, apply against the reference pass, idempotence,
// renaming invariance, and the same ops in every generation (checks.h).
#include <algorithm>
#include <cctype>
#include <sstream>
#include <unordered_map>

#include "checks.h"
#include "ir/verifier.h"
#include "syntax/parser.h"
#include "syntax/printer.h"

namespace differential {

using namespace reshardctl;

namespace {

// "line N: expected `..` got `..`" for the first line where two texts differ.
std::string firstDifference(const std::string& expected, const std::string& actual) {
  std::istringstream a(expected), b(actual);
  std::string left, right;
  for (size_t line = 1;; ++line) {
    const bool moreLeft = static_cast<bool>(std::getline(a, left));
    const bool moreRight = static_cast<bool>(std::getline(b, right));
    if (!moreLeft && !moreRight) return "the texts differ only in their ends";
    if (!moreLeft || !moreRight || left != right)
      return "line " + std::to_string(line) + ":\n  expected: " + (moreLeft ? left : "<end>") +
             "\n  actual:   " + (moreRight ? right : "<end>");
  }
}

// `text` with every %name renamed %v<k>, k in order of first appearance: two
// programs that differ only in their values' names give the same text. A dump
// whose numbering is not Paddle's keeps its names as read (docs/format.md),
// so a renamed program prints with its own names.
std::string canonicalNames(const std::string& text) {
  std::unordered_map<std::string, size_t> numberOf;
  std::string result;
  result.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    if (text[at] != '%') {
      result += text[at++];
      continue;
    }
    size_t end = at + 1;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    const auto [entry, added] = numberOf.try_emplace(text.substr(at, end - at), numberOf.size());
    result += "%v" + std::to_string(entry->second);
    at = end;
  }
  return result;
}

std::string describe(const ProgramModel& program, const Rendered& input, const ExpectedReshard& reshard) {
  const OpModel& op = program.ops[static_cast<size_t>(reshard.op)];
  return op.name + " (line " + std::to_string(input.opLine[static_cast<size_t>(reshard.op)]) + ") operand " +
         std::to_string(reshard.operand) + " " + input.valueName[static_cast<size_t>(reshard.value)] + ": " +
         reshard.srcText + " -> " + reshard.dstText;
}

std::vector<std::string> opNames(const Program& program) {
  std::vector<std::string> names;
  walkOps(*program.body(), [&](const Operation* op) { names.emplace_back(op->name()); });
  return names;
}

uint32_t largestDebugId(const ProgramModel& program) {
  uint32_t largest = 0;
  for (const OpModel& op : program.ops) largest = std::max(largest, op.debugId.value_or(0));
  return largest;
}

}  // namespace

Loaded load(const std::string& name, const std::string& text) {
  Loaded loaded;
  loaded.source = std::make_unique<SourceFile>(SourceFile::fromString(name, text));
  loaded.diagnostics = std::make_unique<DiagnosticEngine>(loaded.source.get());
  ParseResult parsed = parseProgram(*loaded.source, *loaded.diagnostics);
  if (parsed.program && verifyProgram(*parsed.program, *loaded.diagnostics)) loaded.program = std::move(parsed.program);
  return loaded;
}

std::string correspond(const ProgramModel& model, const Program& program, const std::set<const Operation*>& inserted,
                       std::map<const Operation*, int>* ops, std::map<const Value*, int>* values) {
  const std::vector<int> order = opsInPrintOrder(model);
  size_t next = 0;
  std::string problem;
  const std::vector<Value*>& keywords = program.body()->arguments();
  for (size_t k = 0; k < keywords.size() && k < model.blocks[0].args.size(); ++k)
    (*values)[keywords[k]] = model.blocks[0].args[k];
  walkOps(*program.body(), [&](const Operation* op) {
    if (!problem.empty() || inserted.count(op) != 0) return;
    if (next >= order.size()) {
      problem = "the program has more ops than the model";
      return;
    }
    const int index = order[next++];
    const OpModel& expected = model.ops[static_cast<size_t>(index)];
    if (op->name() != expected.name || op->numResults() != expected.results.size()) {
      problem = "op " + std::to_string(next) + " is " + std::string(op->name()) + ", the model has " + expected.name;
      return;
    }
    (*ops)[op] = index;
    for (size_t r = 0; r < op->numResults(); ++r) (*values)[op->result(r)] = expected.results[r];
    for (size_t region = 0; region < op->regions().size() && region < expected.regions.size(); ++region) {
      const std::vector<int>& args = model.blocks[static_cast<size_t>(expected.regions[region])].args;
      const std::vector<Value*>& actual = op->regions()[region]->arguments();
      for (size_t a = 0; a < actual.size() && a < args.size(); ++a) (*values)[actual[a]] = args[a];
    }
  });
  if (problem.empty() && next != order.size()) problem = "the program has fewer ops than the model";
  return problem;
}

std::vector<Failure> Checker::run() {
  std::vector<GenRun> runs;
  for (Gen gen : kAllGens) {
    GenRun run;
    run.gen = gen;
    run.input = renderProgram(program_, RenderOptions{gen, false, 0});
    if (!applyOne(run)) continue;
    checkAgainstReference(run);
    checkIdempotent(run);
    checkRenaming(run);
    checkCheckReport(run);
    checkDiff(run);
    checkPlansAndRuns(run);
    if (settings_.passOptions) checkPassOptions(run);
    if (!settings_.toolPath.empty()) checkCommandLine(run);
    runs.push_back(std::move(run));
  }
  checkGenerationsAgree(runs);
  return std::move(failures_);
}

bool Checker::applyOne(GenRun& run) {
  run.loaded = load("gen" + std::string(genName(run.gen)) + ".ir", run.input.text);
  if (!run.loaded.program) {
    fail("parse", run.gen, run.loaded.errors());
    return false;
  }
  const std::string printed = printProgramToString(*run.loaded.program);
  if (printed != run.input.text) fail("print round trip", run.gen, firstDifference(run.input.text, printed));
  run.expected = referencePass(program_, run.gen);
  run.result = applyPartitionPass(*run.loaded.program, *run.loaded.diagnostics);
  if (!run.expected.applies()) {
    if (run.result.ok) fail("apply vs reference", run.gen, "apply succeeded, but a reshard's op mesh has unknown ids");
    return false;
  }
  if (!run.result.ok) {
    fail("apply vs reference", run.gen, "apply failed: " + run.loaded.errors());
    return false;
  }
  run.inserted.insert(run.result.inserted.begin(), run.result.inserted.end());
  run.output = printProgramToString(*run.loaded.program);
  return true;
}

void Checker::checkAgainstReference(const GenRun& run) {
  std::map<const Operation*, int> ops;
  std::map<const Value*, int> values;
  const std::string problem = correspond(program_, *run.loaded.program, run.inserted, &ops, &values);
  if (!problem.empty()) {
    fail("apply vs reference", run.gen, problem);
    return;
  }
  const std::vector<ExpectedReshard>& expected = run.expected.reshards;
  if (run.result.inserted.size() != expected.size()) {
    std::string detail = std::to_string(run.result.inserted.size()) + " reshards inserted, the reference expects " +
                         std::to_string(expected.size()) + ":";
    for (const ExpectedReshard& reshard : expected) detail += "\n  " + describe(program_, run.input, reshard);
    fail("apply vs reference", run.gen, detail);
    return;
  }
  // Which (model op, operand) reads each value: the pass gives each reshard one use.
  std::map<const Value*, std::vector<std::pair<int, size_t>>> readers;
  for (const auto& [op, index] : ops)
    for (size_t i = 0; i < op->numOperands(); ++i) readers[op->operandValue(i)].emplace_back(index, i);
  const uint32_t largestId = largestDebugId(program_);
  for (size_t k = 0; k < expected.size(); ++k) {
    const Operation& reshard = *run.result.inserted[k];
    const ExpectedReshard& want = expected[k];
    const std::string what = "reshard " + std::to_string(k + 1) + " (" + describe(program_, run.input, want) + "): ";
    if (readers[reshard.result(0)] != std::vector<std::pair<int, size_t>>{{want.op, want.operand}})
      fail("apply vs reference", run.gen, what + "it feeds another op or operand, or more than one");
    auto input = values.find(reshard.operandValue(0));
    if (input == values.end() || input->second != want.value)
      fail("apply vs reference", run.gen, what + "it reshards another value");
    if (std::string(reshard.attributes()) != want.attributes)
      fail("reshard text", run.gen, what + "attributes\n  expected: " + want.attributes + "\n  actual:   " +
                                        std::string(reshard.attributes()));
    const Type* type = reshard.result(0)->type;
    if (!type || type->text != want.resultType)
      fail("reshard text", run.gen, what + "result type\n  expected: " + want.resultType + "\n  actual:   " +
                                        (type ? std::string(type->text) : "<<NULL TYPE>>"));
    const std::optional<uint32_t> id = reshard.debugId();
    const std::optional<uint32_t> wantId =
        program_.debugIds ? std::optional<uint32_t>(largestId + static_cast<uint32_t>(k) + 1) : std::nullopt;
    if (id != wantId) fail("reshard text", run.gen, what + "debug id");
  }
  // Every operand the pass left alone still reads the value it read.
  for (const auto& [op, index] : ops) {
    const OpModel& model = program_.ops[static_cast<size_t>(index)];
    for (size_t i = 0; i < op->numOperands() && i < model.operands.size(); ++i) {
      const Value* value = op->operandValue(i);
      if (value && value->definingOp && run.inserted.count(value->definingOp) != 0) continue;
      auto mapped = values.find(value);
      const int actual = value ? (mapped == values.end() ? -2 : mapped->second) : -1;
      if (actual != model.operands[i])
        fail("apply vs reference", run.gen,
             model.name + " (line " + std::to_string(run.input.opLine[static_cast<size_t>(index)]) + ") operand " +
                 std::to_string(i) + " reads another value");
    }
  }
}

void Checker::checkIdempotent(const GenRun& run) {
  Loaded again = load("applied.ir", run.output);
  if (!again.program) {
    fail("idempotence", run.gen, "apply's output does not parse: " + again.errors());
    return;
  }
  const std::string reprinted = printProgramToString(*again.program);
  if (reprinted != run.output) fail("print round trip of apply's output", run.gen, firstDifference(run.output, reprinted));
  const PartitionResult result = applyPartitionPass(*again.program, *again.diagnostics);
  if (!result.ok) {
    fail("idempotence", run.gen, "apply on apply's output failed: " + again.errors());
    return;
  }
  if (!result.inserted.empty())
    fail("idempotence", run.gen, "apply on apply's output inserted " + std::to_string(result.inserted.size()) +
                                     " reshard(s):\n" +
                                     firstDifference(run.output, printProgramToString(*again.program)));
}

void Checker::checkRenaming(const GenRun& run) {
  const Rendered renamed = renderProgram(program_, RenderOptions{run.gen, true, program_.seed ^ 0x5eed});
  Loaded loaded = load("renamed.ir", renamed.text);
  if (!loaded.program) {
    fail("renaming invariance", run.gen, "the renamed program does not parse: " + loaded.errors());
    return;
  }
  const PartitionResult result = applyPartitionPass(*loaded.program, *loaded.diagnostics);
  const std::string printed = result.ok ? printProgramToString(*loaded.program) : "";
  if (!result.ok || canonicalNames(printed) != canonicalNames(run.output))
    fail("renaming invariance", run.gen,
         result.ok ? firstDifference(canonicalNames(run.output), canonicalNames(printed))
                   : "apply failed: " + loaded.errors());
}

// The options of Paddle's later passes (--fold, --dedupe, --split-cross-mesh,
// --reshard-results): no reference for them, but apply must keep its promise
// that a second run changes nothing, and every reshard must still run. Only
// generation A may fail to build a reshard (a mesh known only by its shape).
void Checker::checkPassOptions(const GenRun& run) {
  const PartitionOptions sets[] = {{false, true, false, false}, {false, false, true, false},
                                   {true, false, false, false}, {false, false, false, true},
                                   {true, true, true, true}};
  for (const PartitionOptions& options : sets) {
    const std::string name = std::string(options.splitCrossMesh ? " --split-cross-mesh" : "") +
                             (options.fold ? " --fold" : "") + (options.dedupe ? " --dedupe" : "") +
                             (options.reshardResults ? " --reshard-results" : "");
    Loaded first = load("options.ir", run.input.text);
    if (!first.program) return;
    if (!applyPartitionPass(*first.program, *first.diagnostics, options).ok) {
      const bool unknownIds = first.errors().find("known only by its shape") != std::string::npos;
      if (run.gen != Gen::A || !unknownIds) fail("apply" + name, run.gen, "apply failed: " + first.errors());
      continue;
    }
    const std::string output = printProgramToString(*first.program);
    Loaded second = load("options-applied.ir", output);
    if (!second.program) {
      fail("apply" + name, run.gen, "its output does not parse: " + second.errors());
      continue;
    }
    const PartitionResult again = applyPartitionPass(*second.program, *second.diagnostics, options);
    const std::string reprinted = again.ok ? printProgramToString(*second.program) : "";
    if (!again.ok || !again.inserted.empty() || reprinted != output)
      fail("idempotence of apply" + name, run.gen,
           again.ok ? firstDifference(output, reprinted) : "the second apply failed: " + second.errors());
    if (settings_.runPlans)
      for (const std::string& problem : runEveryReshard(*first.program, program_.seed))
        fail("run after apply" + name, run.gen, problem);
  }
}

void Checker::checkGenerationsAgree(const std::vector<GenRun>& runs) {
  auto decisions = [](const GenRun& run) {
    std::vector<std::pair<int, size_t>> list;
    for (const ExpectedReshard& reshard : run.expected.reshards) list.emplace_back(reshard.op, reshard.operand);
    return list;
  };
  for (size_t i = 1; i < runs.size(); ++i) {
    // Generation A can see less (ids), so its reference may differ: compare
    // only where the reference makes the same decisions.
    if (decisions(runs[i]) != decisions(runs[0])) continue;
    if (opNames(*runs[i].loaded.program) != opNames(*runs[0].loaded.program))
      fail("same ops in every generation", runs[i].gen,
           "the op sequence differs from generation " + std::string(genName(runs[0].gen)) + "'s");
  }
}

}  // namespace differential
