// The properties the differential test holds every generated program to, and
// the helpers they share. program_checks.cpp: parse, print round trip, apply
// against the reference pass, idempotence, renaming invariance, the same ops
// in every generation. tool_agreement.cpp: --check, --stats, diff, plan and
// run agreeing with apply, in process and through the command line.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "passes/partition_pass.h"
#include "program_model.h"
#include "program_text.h"
#include "reference_pass.h"

namespace differential {

struct Failure {
  std::string property;  // e.g. "idempotence"
  Gen gen = Gen::C;
  std::string detail;
};

struct CheckSettings {
  std::string toolPath;  // reshardctl, for the command-line checks; empty: skip them
  bool runPlans = true;  // `run` every reshard on the CPU reference
  bool passOptions = true;  // also apply with each option of Paddle's later passes
};

// A program read from text, with what it needs kept alive.
struct Loaded {
  std::unique_ptr<reshardctl::SourceFile> source;
  std::unique_ptr<reshardctl::DiagnosticEngine> diagnostics;
  std::unique_ptr<reshardctl::Program> program;
  std::string errors() const { return diagnostics->render(); }
};
Loaded load(const std::string& name, const std::string& text);

// `run` every reshard of `program` on the CPU reference; what failed, if anything.
std::vector<std::string> runEveryReshard(const reshardctl::Program& program, uint64_t seed);

// One generation's run of the pass over one program.
struct GenRun {
  Gen gen = Gen::C;
  Rendered input;
  Expectation expected;
  Loaded loaded;  // after the pass
  reshardctl::PartitionResult result;
  std::string output;  // the printed program after the pass ("" when it failed)
  std::set<const reshardctl::Operation*> inserted;
};

class Checker {
 public:
  Checker(const ProgramModel& program, const CheckSettings& settings) : program_(program), settings_(settings) {}
  std::vector<Failure> run();

 private:
  // program_checks.cpp
  bool applyOne(GenRun& run);
  void checkAgainstReference(const GenRun& run);
  void checkIdempotent(const GenRun& run);
  void checkRenaming(const GenRun& run);
  void checkGenerationsAgree(const std::vector<GenRun>& runs);
  void checkPassOptions(const GenRun& run);
  // tool_agreement.cpp
  void checkCheckReport(const GenRun& run);
  void checkDiff(const GenRun& run);
  void checkPlansAndRuns(const GenRun& run);
  void checkCommandLine(const GenRun& run);

  void fail(std::string property, Gen gen, std::string detail) {
    failures_.push_back(Failure{std::move(property), gen, std::move(detail)});
  }

  const ProgramModel& program_;
  CheckSettings settings_;
  std::vector<Failure> failures_;
};

// The model op of every op of `program` that the pass did not insert, by
// print order; "" or what did not line up.
std::string correspond(const ProgramModel& model, const reshardctl::Program& program,
                       const std::set<const reshardctl::Operation*>& inserted,
                       std::map<const reshardctl::Operation*, int>* ops,
                       std::map<const reshardctl::Value*, int>* values);

}  // namespace differential
