// The differential test of `schedule`: each generated program
// (program_generator.h) is partitioned and lowered for every rank
// (schedule/lowered_ranks.h), and its schedule must be clean: a finding
// there is a false one. Then one call of one rank is broken as a rank's
// program could break it -- dropped, swapped with a later call of its
// communicator, its element count, dtype, ring, reduce type or peer changed --
// and the check must report a finding at the mutated op (one of the
// finding's ops at that op's place in the input; for a dropped call, at it or
// at a call of the run of equal calls it cannot be told from).
//
//   schedule_mutation [--count N] [--seed S] [--min-found PERCENT] [--min-mutations M] [--input FILE]...
// --input adds a dist program of a file (the samples' and goldens' cross-mesh
// ones hold the sends and recvs the generator rarely lowers).
// Prints the figures; exits 1 below PERCENT found (default 99), on any false
// finding, or with fewer than M mutations tried (default 100: a run that
// tries nothing proves nothing).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/source.h"
#include "ir/verifier.h"
#include "passes/lint.h"
#include "passes/partition_pass.h"
#include "program_generator.h"
#include "program_text.h"
#include "schedule/lowered_ranks.h"
#include "schedule/schedule_check.h"
#include "syntax/parser.h"

using namespace reshardctl;

namespace {

enum class Mutation { Drop, Swap, Count, Dtype, Ring, Reduce, Peer };
constexpr Mutation kMutations[] = {Mutation::Drop, Mutation::Swap,   Mutation::Count, Mutation::Dtype,
                                   Mutation::Ring, Mutation::Reduce, Mutation::Peer};

const char* mutationName(Mutation mutation) {
  switch (mutation) {
    case Mutation::Drop: return "drop a call";
    case Mutation::Swap: return "swap two calls";
    case Mutation::Count: return "change a count";
    case Mutation::Dtype: return "change a dtype";
    case Mutation::Ring: return "change a ring";
    case Mutation::Reduce: return "change a reduce type";
    case Mutation::Peer: return "change a peer";
  }
  return "?";
}

struct Options {
  uint64_t count = 300;
  uint64_t seed = 1;
  double minFound = 99.0;
  uint64_t minMutations = 100;
  bool print = false;  // --print 1: each program's text, to rerun one by hand
  std::vector<std::string> inputs;  // --input FILE: dist programs mutated too (point-to-point calls)
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--count") options.count = std::strtoull(value, nullptr, 10);
    else if (flag == "--seed") options.seed = std::strtoull(value, nullptr, 10);
    else if (flag == "--min-found") options.minFound = std::strtod(value, nullptr);
    else if (flag == "--min-mutations") options.minMutations = std::strtoull(value, nullptr, 10);
    else if (flag == "--print") options.print = std::string_view(value) == "1";
    else if (flag == "--input") options.inputs.emplace_back(value);
    else {
      std::fprintf(stderr, "usage: schedule_mutation [--count N] [--seed S] [--min-found PERCENT] [--min-mutations M]\n");
      std::exit(2);
    }
  }
  return options;
}

// One generated program, lowered for every rank.
struct Lowered {
  std::unique_ptr<SourceFile> source;
  LoweredRanks ranks;
  Schedule calls;  // each rank's calls, unresolved
  DiagnosticEngine engine;  // the calls' diagnostics
  // What makes a finding on the unmutated program a true one, not a false
  // one: lowering warned (Paddle's same_status stops at a rank's first
  // pair), verify's lint warns (uneven shards give all_to_all unequal
  // counts), or an op reads a value from a mesh it is not on with no
  // reshard between (its rank keeps the other mesh's collective).
  bool flagged = false;
};

bool readsAcrossMeshes(const Program& program) {
  bool across = false;
  walkOps(*program.body(), [&](const Operation* op) {
    if (!op->distAttr() || !op->distAttr()->mesh.idsKnown) return;
    const std::vector<int64_t>& ids = op->distAttr()->mesh.processIds;
    for (size_t i = 0; i < op->numOperands(); ++i) {
      const Value* value = op->operandValue(i);
      if (!value || !value->dist || !value->dist->mesh.idsKnown) continue;
      for (int64_t id : value->dist->mesh.processIds)
        across = across || std::find(ids.begin(), ids.end(), id) == ids.end();
    }
  });
  return across;
}

std::unique_ptr<Program> parsePartitioned(SourceFile& source) {
  DiagnosticEngine diagnostics(&source);
  ParseResult parsed = parseProgram(source, diagnostics);
  if (!parsed.program || !verifyProgram(*parsed.program, diagnostics)) return nullptr;
  if (!applyPartitionPass(*parsed.program, diagnostics, PartitionOptions{}).ok) return nullptr;
  return std::move(parsed.program);
}

std::unique_ptr<Lowered> lowerText(std::string name, std::string text, uint64_t seed, bool print) {
  auto lowered = std::make_unique<Lowered>();
  lowered->source = std::make_unique<SourceFile>(SourceFile::fromString(std::move(name), std::move(text)));
  if (print) std::printf("// seed %llu\n%s", static_cast<unsigned long long>(seed), std::string(lowered->source->text()).c_str());
  std::unique_ptr<Program> first = parsePartitioned(*lowered->source);
  if (!first || !isDistProgram(*first)) return nullptr;
  DiagnosticEngine diagnostics(lowered->source.get());
  lowered->flagged = lintProgram(*first, diagnostics) > 0 || readsAcrossMeshes(*first);
  const auto collect = [&](int64_t rank, const Program& program) {
    lowered->calls.add(collectRank({rank, &program, lowered->source.get(), "generated.ir", &lowered->engine}));
  };
  lowered->ranks = lowerEveryRank(first.get(), collect, diagnostics);
  if (!lowered->ranks.ok) return nullptr;
  for (const Diagnostic& d : diagnostics.diagnostics()) lowered->flagged = lowered->flagged || d.code == "lowering";
  return lowered;
}

// What the check sees of one call: two calls that agree on all of it cannot
// be told apart, so swapping them is no mutation.
bool sameCall(const CommCall& a, const CommCall& b) {
  return a.kind == b.kind && a.ring == b.ring && a.peerIndex == b.peerIndex && a.count == b.count &&
         a.dtype == b.dtype && a.reduce == b.reduce && a.root == b.root;
}

// The places of the calls that dropping calls[i] cannot be told from: the run
// of calls equal to it (sameCall) next to each other among its ring's calls.
// Dropping any one of them leaves the same schedule, so a finding at any of
// them is at the dropped op.
std::vector<uint32_t> indistinguishable(const std::vector<CommCall>& calls, size_t i) {
  std::vector<uint32_t> places{calls[i].location};
  for (size_t j = i; j-- > 0;) {
    if (calls[j].ring != calls[i].ring) continue;
    if (!sameCall(calls[j], calls[i])) break;
    places.push_back(calls[j].location);
  }
  for (size_t j = i + 1; j < calls.size(); ++j) {
    if (calls[j].ring != calls[i].ring) continue;
    if (!sameCall(calls[j], calls[i])) break;
    places.push_back(calls[j].location);
  }
  return places;
}

// Applies `mutation` to one call of `schedule` chosen by `random`; the
// places a finding may name for it (the op it broke, or for a drop any op of
// the run it cannot be told from), or nullopt when no call takes it.
std::optional<std::vector<uint32_t>> mutate(Schedule& schedule, const GroupTable& groups, Mutation mutation,
                                            std::mt19937_64& random) {
  std::vector<std::pair<size_t, size_t>> candidates;
  for (size_t r = 0; r < schedule.ranks.size(); ++r)
    for (size_t i = 0; i < schedule.ranks[r].calls.size(); ++i) {
      const std::vector<CommCall>& calls = schedule.ranks[r].calls;
      const CommCall& c = calls[i];
      // A call inside control flow is not checked; one on a one-rank
      // communicator has no partner to disagree with: neither is a hazard.
      if (c.inControlFlow || groups.count(c.ring) == 0 || groups.at(c.ring).size() < 2) continue;
      bool takes = true;
      switch (mutation) {
        case Mutation::Drop: break;
        case Mutation::Swap:
          takes = false;
          for (size_t j = i + 1; j < calls.size() && !takes; ++j)
            takes = calls[j].ring == c.ring && !calls[j].inControlFlow && !sameCall(c, calls[j]);
          break;
        case Mutation::Count: takes = c.count > 0; break;
        case Mutation::Dtype: takes = !c.dtype.empty(); break;
        case Mutation::Ring: takes = groups.size() > 1; break;
        case Mutation::Reduce: takes = c.reduce.has_value(); break;
        case Mutation::Peer: takes = isPointToPoint(c.kind); break;
      }
      if (takes) candidates.emplace_back(r, i);
    }
  if (candidates.empty()) return std::nullopt;
  const auto [r, i] = candidates[random() % candidates.size()];
  std::vector<CommCall>& calls = schedule.ranks[r].calls;
  CommCall& c = calls[i];
  const std::vector<uint32_t> places = mutation == Mutation::Drop ? indistinguishable(calls, i)
                                                                  : std::vector<uint32_t>{c.location};
  switch (mutation) {
    case Mutation::Drop: calls.erase(calls.begin() + static_cast<std::ptrdiff_t>(i)); break;
    case Mutation::Swap:
      for (size_t j = i + 1; j < calls.size(); ++j)
        if (calls[j].ring == c.ring && !calls[j].inControlFlow && !sameCall(c, calls[j])) {
          std::swap(calls[i], calls[j]);
          break;
        }
      break;
    case Mutation::Count: c.count += 1 + static_cast<int64_t>(random() % c.count); break;
    case Mutation::Dtype: c.dtype = c.dtype == "f32" ? "bf16" : "f32"; break;
    case Mutation::Ring: {
      auto other = groups.begin();
      std::advance(other, static_cast<std::ptrdiff_t>(random() % (groups.size() - 1)));
      if (other->first == c.ring) ++other;
      c.ring = other->first;
      break;
    }
    case Mutation::Reduce: {
      constexpr ReduceType kTypes[] = {ReduceType::Sum, ReduceType::Max, ReduceType::Min, ReduceType::Product,
                                       ReduceType::Avg};
      ReduceType changed = kTypes[random() % 5];
      if (changed == *c.reduce) changed = changed == ReduceType::Sum ? ReduceType::Max : ReduceType::Sum;
      c.reduce = changed;
      break;
    }
    case Mutation::Peer: c.peerIndex += 1; break;
  }
  return places;
}

bool foundAt(const Schedule& schedule, const ScheduleCheck& check, const std::vector<uint32_t>& places) {
  for (const Finding& finding : check.findings)
    for (const FindingOp& op : finding.ops)
      if (op.call != kNoCall &&
          std::find(places.begin(), places.end(), schedule.ranks[op.rank].calls[op.call].location) != places.end())
        return true;
  return false;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Tally {
  uint64_t tried = 0, found = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  uint64_t lowered = 0, withCalls = 0, flagged = 0, flaggedFindings = 0, calls = 0, falseFindings = 0;
  std::map<Mutation, Tally> tallies;
  for (uint64_t k = 0; k < options.count + options.inputs.size(); ++k) {
    const uint64_t seed = options.seed + k;
    std::unique_ptr<Lowered> program;
    try {
      const bool generated = k < options.count;
      std::string text = generated ? differential::renderProgram(differential::generateProgram(seed), {differential::Gen::C}).text
                                   : readFile(options.inputs[k - options.count]);
      program = lowerText(generated ? "generated.ir" : options.inputs[k - options.count], std::move(text), seed, options.print);
    } catch (const InputError&) {  // a generated program that does not parse: not one to lower
    }
    if (!program) continue;
    ++lowered;
    const Schedule& base = program->calls;
    if (base.callCount() == 0) continue;
    ++withCalls;
    calls += base.callCount();
    Schedule unmutated = base;
    resolveSchedule(unmutated, program->ranks.groups);
    const ScheduleCheck clean = checkSchedule(unmutated);
    flagged += program->flagged ? 1 : 0;
    if (!clean.clean() && program->flagged) {  // a true finding, maybe: not mutated
      ++flaggedFindings;
      continue;
    }
    if (!clean.clean()) {
      ++falseFindings;
      std::printf("FALSE FINDING seed %llu: %s\n", static_cast<unsigned long long>(seed),
                  clean.findings.front().message.c_str());
      continue;
    }
    std::mt19937_64 random(seed);
    for (Mutation mutation : kMutations) {
      Schedule mutated = base;
      const std::optional<std::vector<uint32_t>> places = mutate(mutated, program->ranks.groups, mutation, random);
      if (!places) continue;
      resolveSchedule(mutated, program->ranks.groups);
      Tally& tally = tallies[mutation];
      ++tally.tried;
      if (foundAt(mutated, checkSchedule(mutated), *places)) {
        ++tally.found;
        continue;
      }
      std::printf("MISSED seed %llu: %s\n", static_cast<unsigned long long>(seed), mutationName(mutation));
    }
  }
  Tally total;
  std::printf("schedule_mutation: %llu programs (seeds %llu..%llu), %llu lowered for every rank, %llu with calls "
              "(%llu calls);\n  %llu of them flagged (lint, lowering's warnings, a read across meshes), %llu of those with a "
              "finding before any mutation (not mutated); %zu input files\n",
              static_cast<unsigned long long>(options.count), static_cast<unsigned long long>(options.seed),
              static_cast<unsigned long long>(options.seed + options.count - 1), static_cast<unsigned long long>(lowered),
              static_cast<unsigned long long>(withCalls), static_cast<unsigned long long>(calls),
              static_cast<unsigned long long>(flagged), static_cast<unsigned long long>(flaggedFindings),
              options.inputs.size());
  for (Mutation mutation : kMutations) {
    const Tally& tally = tallies[mutation];
    total.tried += tally.tried;
    total.found += tally.found;
    std::printf("  %-22s %5llu of %5llu found\n", mutationName(mutation), static_cast<unsigned long long>(tally.found),
                static_cast<unsigned long long>(tally.tried));
  }
  const double percent = total.tried ? 100.0 * static_cast<double>(total.found) / static_cast<double>(total.tried) : 0.0;
  std::printf("  all mutations          %5llu of %5llu found (%.2f%%); false findings on unmutated programs: %llu\n",
              static_cast<unsigned long long>(total.found), static_cast<unsigned long long>(total.tried), percent,
              static_cast<unsigned long long>(falseFindings));
  const bool ok = falseFindings == 0 && total.tried >= options.minMutations && percent >= options.minFound;
  return ok ? 0 : 1;
}
