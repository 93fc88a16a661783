// `reshardctl schedule RANK_FILES...`: each rank's program (input i is rank
// i, unless --ranks or a log's labels say otherwise; a log's programs are
// one rank each) → its communication calls (schedule/schedule.h) → the check
// across ranks (schedule/schedule_check.h) → findings as diagnostics, and
// the listing, the table or the JSON document on the output.
//
// `reshardctl schedule [--apply] FILE` on one dist program (op_dist_attr, no
// communication op yet): lowered for every rank as Paddle lowers it
// (schedule/lowered_ranks.h), the groups lowering made as the communicators,
// and the same check through the same seam, buildSchedule; each call is
// located at the dist program's reshard it was lowered from.
#include <cctype>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "passes/mix_to_dist.h"
#include "passes/partition_pass.h"
#include "report/json_export.h"
#include "schedule/lowered_ranks.h"
#include "schedule/schedule.h"
#include "schedule/schedule_check.h"
#include "schedule/schedule_html.h"
#include "schedule/schedule_output.h"
#include "support/failure.h"
#include "support/text.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

struct ScheduleOptions {
  InputSelection inputs;
  std::vector<int64_t> ranks;  // --ranks: the rank of each program, in order
  std::string groups;          // --groups FILE: {"RING": [ranks...], ...}
  std::string output = "-";
  bool json = false;   // schema/schedule.schema.json
  bool table = false;  // one column per rank
  bool html = false;   // the page: the table with the findings highlighted
  bool apply = false;  // the input is one dist program: run the partition pass before lowering it
  PartitionOptions pass;
  LoweringKind lowering = LoweringKind::Paddle;  // how a dist program's reshards are lowered
  CostModel costs;                              // --lowering=plan: the planner's default model
};

// Every rank's program, loaded, with the engine its diagnostics go to.
struct LoadedRank {
  LoadedProgram loaded;
  std::unique_ptr<DiagnosticEngine> diagnostics;
  std::string name;
  std::string label;
};

// The rank a log's label names ("rank 3", "rank_3", "Rank:3"), or -1. A
// scan, not a regex: a label is a log line, of any length.
int64_t rankOfLabel(std::string_view label) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (size_t at = 0; at + 4 <= label.size(); ++at) {
    if (at > 0 && std::isalpha(static_cast<unsigned char>(label[at - 1]))) continue;
    if (lower(label[at]) != 'r' || lower(label[at + 1]) != 'a' || lower(label[at + 2]) != 'n' || lower(label[at + 3]) != 'k')
      continue;
    size_t digits = label.find_first_not_of(" _:=#", at + 4);
    int64_t rank = 0;
    size_t count = 0;
    for (; digits < label.size() && std::isdigit(static_cast<unsigned char>(label[digits])) && count < 7; ++digits, ++count)
      rank = rank * 10 + (label[digits] - '0');
    if (count > 0) return rank;
  }
  return -1;
}

// Each file's programs, each a rank (a file of several: each program in turn).
std::vector<LoadedRank> loadRanks(const ScheduleOptions& options, Reporter& reporter, int& status) {
  std::vector<LoadedRank> ranks;
  for (const std::string& path : expandInputs(options.inputs, reporter)) {
    const std::shared_ptr<const InputFile> file = readInput(path, options.inputs.fragment);
    const size_t programs = file->programs.size();
    for (size_t k = 0; k < std::max<size_t>(programs, 1); ++k) {
      LoadedRank rank;
      rank.diagnostics = std::make_unique<DiagnosticEngine>(reporter.engine());
      // A log's programs by their number, as forEachInput takes them: a
      // selector "N" would be matched against the N - 1 programs before it.
      InputProgram input = InputProgram::chosen(file, "");
      if (programs > 1) input.index = k + 1;
      rank.loaded = loadProgram(input, *rank.diagnostics);
      rank.name = programs > 1 ? fmt::format("{}#{}", path, k + 1) : path;
      if (programs > 0) rank.label = file->programs[k].label;
      if (!rank.loaded.program) {
        reporter.report(*rank.diagnostics);
        status = std::max(status, rank.loaded.failure == kExitOk ? int(kExitBadInput) : rank.loaded.failure);
        continue;
      }
      ranks.push_back(std::move(rank));
    }
  }
  return ranks;
}

GroupTable readGroups(const std::string& path) {
  GroupTable groups;
  if (path.empty()) return groups;
  std::ifstream in(path);
  if (!in) throw Failure(FailureKind::Io, fmt::format("cannot read --groups file '{}'", path));
  const nlohmann::json document = nlohmann::json::parse(in, nullptr, false);
  const auto bad = [&](const std::string& why) {
    return Failure(FailureKind::Usage, fmt::format("--groups file '{}': {} (expected {{\"RING_ID\": [RANK, ...], ...}})", path, why));
  };
  if (document.is_discarded() || !document.is_object()) throw bad("not a JSON object");
  for (const auto& [key, ranks] : document.items()) {
    if (key.empty() || key.size() > 18 || !std::all_of(key.begin(), key.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      throw bad(fmt::format("ring id '{}' is not a non-negative integer", key));
    if (!ranks.is_array() || ranks.empty()) throw bad(fmt::format("ring {}: not a non-empty array of ranks", key));
    std::vector<int64_t>& members = groups[std::stoll(key)];
    for (const auto& rank : ranks) {
      if (!rank.is_number_integer() || rank.get<int64_t>() < 0) throw bad(fmt::format("ring {}: a rank is not a non-negative integer", key));
      members.push_back(rank.get<int64_t>());
    }
  }
  return groups;
}

// --ranks, else a label's "rank N", else the position; each rank once.
std::vector<RankInput> rankPrograms(const ScheduleOptions& options, std::vector<LoadedRank>& loaded) {
  if (!options.ranks.empty() && options.ranks.size() != loaded.size())
    throw Failure(FailureKind::Usage, fmt::format("--ranks names {} but {} read", plural(options.ranks.size(), "rank"),
                                                  plural(loaded.size(), "program")));
  std::vector<RankInput> programs;
  std::map<int64_t, std::string> seen;
  for (size_t i = 0; i < loaded.size(); ++i) {
    const int64_t labelled = rankOfLabel(loaded[i].label);
    const int64_t rank = !options.ranks.empty() ? options.ranks[i] : labelled >= 0 ? labelled : static_cast<int64_t>(i);
    if (auto [it, fresh] = seen.emplace(rank, loaded[i].name); !fresh)
      throw Failure(FailureKind::Usage, fmt::format("rank {} is given twice ({} and {}): --ranks names each program's rank",
                                                    rank, it->second, loaded[i].name));
    programs.push_back({rank, loaded[i].loaded.program.get(), loaded[i].loaded.source.get(), loaded[i].name,
                        loaded[i].diagnostics.get()});
  }
  return programs;
}

// One dist program as every rank runs it: each rank's calls, collected as
// its program is lowered, and the engines their diagnostics go to (merged
// into the input's own, each once).
struct DistRanks {
  LoweredRanks lowered;
  Schedule schedule;
  std::vector<std::unique_ptr<DiagnosticEngine>> engines;
};

std::unique_ptr<Program> partitioned(std::unique_ptr<Program> program, const ScheduleOptions& options,
                                     DiagnosticEngine& diagnostics) {
  if (!program || !options.apply) return program;
  return runMixToDistAndPartition(*program, diagnostics, options.pass) ? std::move(program) : nullptr;
}

DistRanks lowerDist(LoadedRank& dist, const ScheduleOptions& options) {
  DiagnosticEngine& diagnostics = *dist.diagnostics;
  const SourceFile* source = dist.loaded.source.get();
  DistRanks ranks;
  const LoweredRankSink collect = [&](int64_t rank, const Program& program) {
    ranks.engines.push_back(std::make_unique<DiagnosticEngine>(source));
    ranks.schedule.add(collectRank({rank, &program, source, dist.name, ranks.engines.back().get()}));
  };
  dist.loaded.program = partitioned(std::move(dist.loaded.program), options, diagnostics);
  ranks.lowered = lowerEveryRank(dist.loaded.program.get(), collect, diagnostics,
                                 options.lowering == LoweringKind::Plan ? &options.costs : nullptr);
  return ranks;
}

// The ranks' call diagnostics into the input's engine, each (place, message) once.
void mergeDistinct(const DistRanks& ranks, DiagnosticEngine& into) {
  std::set<std::pair<size_t, std::string>> seen;
  for (const auto& engine : ranks.engines)
    for (const Diagnostic& d : engine->diagnostics()) {
      if (!seen.emplace(d.offset, d.message).second) continue;
      if (d.severity == Severity::Error) into.error(d.offset, d.length, d.message);
      else into.warning(d.code, d.offset, d.length, d.message);
    }
}

void reportFindings(const Schedule& schedule, const ScheduleCheck& check, std::vector<LoadedRank>& loaded, Reporter& reporter) {
  for (LoadedRank& rank : loaded) reporter.report(*rank.diagnostics);  // control-flow warnings, unreadable attributes
  for (const std::string& warning : uncheckedCommunicators(schedule)) reporter.toolWarning(warning);
  for (RankDiagnostic& finding : findingDiagnostics(schedule, check)) {
    DiagnosticEngine diagnostics = reporter.engine(schedule.ranks[finding.rank].source);
    Diagnostic& error = diagnostics.error(finding.diagnostic.offset, finding.diagnostic.length, finding.diagnostic.message);
    error.code = finding.diagnostic.code;
    error.notes = std::move(finding.diagnostic.notes);
    reporter.report(diagnostics);
  }
}

// One input holding one dist program (or --apply): lowered for every rank.
bool distMode(const ScheduleOptions& options, const std::vector<LoadedRank>& loaded) {
  if (options.apply && loaded.size() != 1)
    throw Failure(FailureKind::Usage, fmt::format("--apply lowers one dist program for every rank, but {} read",
                                                  plural(loaded.size(), "program")));
  return options.apply || (loaded.size() == 1 && isDistProgram(*loaded[0].loaded.program));
}

int runSchedule(const ScheduleOptions& options, Reporter& reporter) {
  GroupTable groups = readGroups(options.groups);
  int status = kExitOk;
  std::vector<LoadedRank> loaded = loadRanks(options, reporter, status);
  if (status != kExitOk) return status;
  if (loaded.empty()) throw Failure(FailureKind::Usage, "no program to check: name each rank's program");
  const bool dist = distMode(options, loaded);
  if (dist && !options.ranks.empty()) throw Failure(FailureKind::Usage, "--ranks names per-rank programs; a dist program's ranks are its meshes'");
  DistRanks lowered;
  if (dist) {
    lowered = lowerDist(loaded[0], options);
    if (!lowered.lowered.ok) {
      reporter.report(*loaded[0].diagnostics);
      return kExitBadInput;
    }
    groups.merge(lowered.lowered.groups);  // --groups first: a caller's table overrides
  }
  Schedule schedule = dist ? std::move(lowered.schedule) : collectSchedule(rankPrograms(options, loaded));
  resolveSchedule(schedule, groups);
  const ScheduleCheck check = checkSchedule(schedule);
  if (dist) mergeDistinct(lowered, *loaded[0].diagnostics);
  reportFindings(schedule, check, loaded, reporter);
  for (const LoadedRank& rank : loaded)
    if (rank.diagnostics->errorCount() > 0) status = kExitBadInput;
  const std::string text = options.json    ? dumpJson(scheduleJson(schedule, check))
                           : options.table ? scheduleTable(schedule)
                           : options.html  ? scheduleHtml(schedule, check)
                                           : scheduleListing(schedule, check);
  DiagnosticEngine output = reporter.engine();
  const int written = writeTextOutput(text, options.output, output);
  reporter.report(output);
  reporter.summary(standardError(), scheduleSummary(schedule, check));
  if (!check.clean()) status = std::max(status, int(kExitBadInput));
  return std::max(status, written);
}

SubcommandRunner defineSchedule(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<ScheduleOptions>();
  addInputFlags(command, options->inputs,
                "Each rank's program: dumps or logs, input i being rank i ('-' = standard input); a log's "
                "programs are one rank each. Or one dist program, lowered for every rank");
  command.add_option("--ranks", options->ranks, "The rank of each program read, in order (default: a log label's "
                                                "'rank N', else the program's position)")
      ->delimiter(',');
  command.add_option("--groups", options->groups,
                     "A JSON file {\"RING_ID\": [RANK, ...]} naming each communicator's ranks (default: the "
                     "collectives' op_dist_attr mesh, else the ranks that use the ring id)");
  addOutput(command, options->output);
  command.add_flag("--json", options->json, "Write JSON (schema/schedule.schema.json)");
  command.add_flag("--table", options->table, "Write the calls as a table, one column per rank");
  command.add_flag("--html", options->html,
                   "Write a self-contained HTML page: the findings, and the table with each finding's calls highlighted");
  command.get_option("--json")->excludes("--table")->excludes("--html");
  command.get_option("--table")->excludes("--html");
  command.add_flag("--apply", options->apply,
                   "The input is one dist program: run Paddle's mix2dist pass (folding dist_op.shard_tensor) and the "
                   "partition pass, then lower it for every rank (a dist program without --apply is lowered as it is)");
  addPartitionFlags(command, options->pass);
  addChoiceOption(command, "--lowering", options->lowering, loweringChoices(), kLoweringHelp);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("Exit status: 0 the ranks' calls match and cannot hang, 1 a finding (a mismatch, "
                             "an unmatched send or recv, a deadlock) or bad input, {}.", kUsageExit));
  return [options](Reporter& reporter) { return runSchedule(*options, reporter); };
}

}  // namespace

const SubcommandSpec kScheduleSubcommand{"schedule",
                                         "Check per-rank programs (or a dist program lowered for every rank) before "
                                         "a run: every communicator's ranks issue the same collectives, every send "
                                         "has its recv, no wait cycle can hang",
                                         defineSchedule};

}  // namespace reshardctl
