// One entry point per subcommand. src/tool/cli.cpp maps the command line onto
// these option structs; each returns the process exit code (support/exit_code.h)
// or throws a Failure (support/failure.h), and reports its diagnostics through
// the run's Reporter (reporting.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "passes/partition_pass.h"
#include "reshard/cost_model.h"
#include "tool/input_files.h"
#include "tool/reporting.h"

namespace reshardctl {

struct ApplyOptions {
  InputSelection inputs;  // several only with --check, --in-place or --diff; with --program
  std::string output = "-";
  bool stats = false;  // report the inserted reshards and their planned cost on stderr
  CostModel costs;     // for the stats
  PartitionOptions pass;  // the partition pass's switches
  bool check = false;    // write nothing; list what would be inserted, exit 1 if anything
  bool inPlace = false;  // write the result back to the input file
  bool diff = false;     // write nothing; print a unified diff input -> output
  bool json = false;     // with --check: the findings as JSON (schema/check.schema.json)
};
int runApply(const ApplyOptions& options, Reporter& reporter);

struct PrintOptions {
  InputSelection inputs;     // printed one after another; with --program
  std::string output = "-";
  // "ir" (the dump), "json" (json_export.h), or a view (src/view/): "brief",
  // "dot", "html".
  std::string emit = "ir";
  bool brief = false;  // --brief: the same as --emit=brief
  std::vector<std::string> shownAttributes;  // views: attributes to show by name
  std::string focus;   // views: only the neighbourhood of this value ("%9")
  int depth = 2;       // with focus: how many dataflow steps around it
  std::string compare;  // html: the program before `apply`, shown side by side
  size_t maxOps = 5000;  // html: the most op rows the page inlines
  CostModel costs;       // reshard costs in the views
};
int runPrint(const PrintOptions& options, Reporter& reporter);

struct PlanOptions {
  std::string input = "-";
  std::string output = "-";
  std::string program;  // --program N|TEXT: which program of a file holding several (input_files.h)
  bool json = false;
  bool apply = false;  // run the partition pass first and plan what it inserts
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
};
int runPlan(const PlanOptions& options, Reporter& reporter);

struct VerifyOptions {
  InputSelection inputs;  // with --program
  bool quiet = false;   // do not print warnings
  bool json = false;    // a report on stdout (schema/verify.schema.json)
};
int runVerify(const VerifyOptions& options, Reporter& reporter);

// --scale beyond this makes every tensor too large for the host reference
// (reshard_run.h: at most 2^27 elements); --iters beyond this is a typo.
constexpr int64_t kMaxRunScale = int64_t{1} << 27;
constexpr int kMaxRunIterations = 1'000'000;

struct RunOptions {
  std::string input = "-";
  std::string output = "-";  // the report
  std::string program;  // --program N|TEXT: which program of a file holding several (input_files.h)
  std::string backend = "cpu";  // cpu | nccl
  std::string launcher = "auto";  // auto | mpi | none: how --backend nccl finds its processes (multi_process.h)
  uint64_t seed = 1;
  int64_t scale = 1;       // multiplies every value's largest dim
  int iterations = 1;      // > 1: a warm-up, then the mean time of the rest
  bool apply = false;      // run the partition pass first
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
  std::string fault;  // testing hook: "RESHARD:STEP:offset|drop" (reshard_run.h)
  bool json = false;  // the report as JSON (schema/run.schema.json)
};
int runRun(const RunOptions& options, Reporter& reporter);
// Exits as diff(1): 0 equal, 1 different, 2 trouble (unreadable or bad input).
struct DiffCommandOptions {
  std::string before;
  std::string after;  // "" with two --program: both programs come from `before`
  std::vector<std::string> programs;  // --program: the first for `before`, the second for `after`
  std::vector<std::string> ignoredAttributes;
  bool stat = false;  // only the summary line
  bool unified = false;  // a unified diff of the two texts, under the summary line
  size_t context = 3;    // its lines of context
  bool json = false;     // the changes as JSON (schema/diff.schema.json)
};
int runDiff(const DiffCommandOptions& options, Reporter& reporter);

// `reshardctl list FILE...`: the programs each file (a log) holds, one a line.
struct ListOptions {
  InputSelection inputs;  // files, not programs: each is listed whole
  std::string output = "-";
  bool json = false;  // schema/list.schema.json
};
int runList(const ListOptions& options, Reporter& reporter);
// Exits 0 when every op checked matches the serial program, 1 at a divergence
// (or bad input), 2 on bad usage, or with --strict when some op is not simulated.
struct ValidateCommandOptions {
  InputSelection inputs;        // each validated in turn; with --program
  std::string output = "-";     // the summaries (or the JSON)
  bool apply = false;           // run the partition pass first
  PartitionOptions pass;        // the partition pass's switches
  std::string backend = "cpu";  // cpu | nccl: where the reshards run
  uint64_t seed = 1;
  int64_t dynamicDim = 4;       // the size of a -1 dim
  std::optional<double> rtol, atol;
  bool all = false;             // go on after the first divergence
  bool json = false;            // schema/validate.schema.json
  bool strict = false;          // exit 2 when some op is not simulated
};
int runValidate(const ValidateCommandOptions& options, Reporter& reporter);

}  // namespace reshardctl
