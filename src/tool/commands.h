// One entry point per subcommand. src/tool/cli.cpp maps the command line onto
// these option structs; each returns the process exit code (program_io.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "passes/partition_pass.h"
#include "reshard/cost_model.h"

namespace reshardctl {

struct ApplyOptions {
  std::string input = "-";
  std::string output = "-";
  bool stats = false;  // report the inserted reshards and their planned cost on stderr
  CostModel costs;     // for the stats
  PartitionOptions pass;  // the partition pass's switches
  bool check = false;    // write nothing; list what would be inserted, exit 1 if anything
  bool inPlace = false;  // write the result back to the input file
};
int runApply(const ApplyOptions& options);

struct PrintOptions {
  std::string input = "-";
  std::string output = "-";
  std::string emit = "ir";  // "ir" (the dump) or "json" (json_export.h)
};
int runPrint(const PrintOptions& options);

struct PlanOptions {
  std::string input = "-";
  std::string output = "-";
  bool json = false;
  bool apply = false;  // run the partition pass first and plan what it inserts
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
};
int runPlan(const PlanOptions& options);

struct VerifyOptions {
  std::string input = "-";
  bool werror = false;  // warnings fail the run (exit 1)
  bool quiet = false;   // do not print warnings
};
int runVerify(const VerifyOptions& options);

// --scale beyond this makes every tensor too large for the host reference
// (reshard_run.h: at most 2^27 elements); --iters beyond this is a typo.
constexpr int64_t kMaxRunScale = int64_t{1} << 27;
constexpr int kMaxRunIterations = 1'000'000;

struct RunOptions {
  std::string input = "-";
  std::string output = "-";  // the report
  std::string backend = "cpu";  // cpu | nccl
  std::string launcher = "auto";  // auto | mpi | none: how --backend nccl finds its processes (multi_process.h)
  uint64_t seed = 1;
  int64_t scale = 1;       // multiplies every value's largest dim
  int iterations = 1;      // > 1: a warm-up, then the mean time of the rest
  bool apply = false;      // run the partition pass first
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
  std::string fault;  // testing hook: "RESHARD:STEP:offset|drop" (reshard_run.h)
};
int runRun(const RunOptions& options);
// Exits as diff(1): 0 equal, 1 different, 2 trouble (unreadable or bad input).
struct DiffCommandOptions {
  std::string before;
  std::string after;
  std::vector<std::string> ignoredAttributes;
  bool stat = false;  // only the summary line
};
int runDiff(const DiffCommandOptions& options);

}  // namespace reshardctl
