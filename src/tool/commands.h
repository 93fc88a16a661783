// One entry point per subcommand. src/tool/cli.cpp maps the command line onto
// these option structs; each returns the process exit code (program_io.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "passes/partition_pass.h"
#include "reshard/cost_model.h"

namespace reshardctl {

struct ApplyOptions {
  std::string input = "-";
  std::string output = "-";
  std::string program;  // --program N|TEXT: which program of a file holding several (program_io.h)
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
  std::string program;  // --program N|TEXT: which program of a file holding several (program_io.h)
  std::string emit = "ir";  // "ir" (the dump) or "json" (json_export.h)
};
int runPrint(const PrintOptions& options);

struct PlanOptions {
  std::string input = "-";
  std::string output = "-";
  std::string program;  // --program N|TEXT: which program of a file holding several (program_io.h)
  bool json = false;
  bool apply = false;  // run the partition pass first and plan what it inserts
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
};
int runPlan(const PlanOptions& options);

struct VerifyOptions {
  std::string input = "-";
  std::string program;  // --program N|TEXT: which program of a file holding several (program_io.h)
  bool werror = false;  // warnings fail the run (exit 1)
  bool quiet = false;   // do not print warnings
};
int runVerify(const VerifyOptions& options);

struct RunOptions {
  std::string input = "-";
  std::string output = "-";  // the report
  std::string program;  // --program N|TEXT: which program of a file holding several (program_io.h)
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
  std::string after;  // "" with two --program: both programs come from `before`
  std::vector<std::string> programs;  // --program: the first for `before`, the second for `after`
  std::vector<std::string> ignoredAttributes;
  bool stat = false;  // only the summary line
};
int runDiff(const DiffCommandOptions& options);

// `reshardctl list FILE`: the programs a file (a log) holds, one a line.
struct ListOptions {
  std::string input = "-";
  std::string output = "-";
  bool json = false;
};
int runList(const ListOptions& options);
// Exits 0 when every op checked matches the serial program, 1 at a divergence
// (or bad input), 2 on bad usage, or with --strict when some op is not simulated.
struct ValidateCommandOptions {
  std::string input = "-";
  std::string program;  // --program N|TEXT: which program of a file holding several (program_io.h)
  std::string output = "-";     // the summary (or the JSON)
  bool apply = false;           // run the partition pass first
  PartitionOptions pass;        // the partition pass's switches
  std::string backend = "cpu";  // cpu | nccl: where the reshards run
  uint64_t seed = 1;
  int64_t dynamicDim = 4;       // the size of a -1 dim
  std::optional<double> rtol, atol;
  bool all = false;             // go on after the first divergence
  bool json = false;
  bool strict = false;          // exit 2 when some op is not simulated
};
int runValidate(const ValidateCommandOptions& options);

}  // namespace reshardctl
