// The differential test: generates programs from consecutive seeds and holds
// each to every property of checks.h, printing each failing program with its
// seed. `differential --seed S --count 1 --print` shows one program.
//
//   differential [--count N] [--seed S] [--tool PATH [--tool-every K]] [--no-run]
//                [--options-every K] [--print] [--max-shown M]
// --tool runs the command-line checks on every K-th program (default every one),
// --options-every the pass options' checks (0: never).
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "checks.h"
#include "program_generator.h"
#include "reference_pass.h"

using namespace differential;

namespace {

struct Options {
  uint64_t count = 100;
  uint64_t seed = 1;
  std::string tool;
  uint64_t toolEvery = 1;
  uint64_t optionsEvery = 1;
  bool run = true;
  bool print = false;
  uint64_t maxShown = 3;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "differential: %s\nusage: differential [--count N] [--seed S] [--tool PATH [--tool-every K]] "
               "[--no-run] [--options-every K] [--print] [--max-shown M]\n",
               why);
  std::exit(2);
}

uint64_t number(int& i, int argc, char** argv) {
  if (i + 1 >= argc) usage("a flag lacks its value");
  char* end = nullptr;
  const uint64_t value = std::strtoull(argv[++i], &end, 10);
  if (!end || *end) usage("not a number");
  return value;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--count") options.count = number(i, argc, argv);
    else if (flag == "--seed") options.seed = number(i, argc, argv);
    else if (flag == "--tool-every") options.toolEvery = number(i, argc, argv);
    else if (flag == "--options-every") options.optionsEvery = number(i, argc, argv);
    else if (flag == "--max-shown") options.maxShown = number(i, argc, argv);
    else if (flag == "--tool" && i + 1 < argc) options.tool = std::filesystem::absolute(argv[++i]).string();
    else if (flag == "--no-run") options.run = false;
    else if (flag == "--print") options.print = true;
    else usage("unknown flag");
  }
  if (!options.tool.empty() && !std::filesystem::exists(options.tool)) usage("--tool names no file");
  return options;
}

// What the programs exercised, so a run shows what it covered.
struct Coverage {
  uint64_t reshards = 0, crossMesh = 0, unbuildableInA = 0, unplannable = 0, withRegions = 0;

  void add(const ProgramModel& program) {
    for (const OpModel& op : program.ops) withRegions += op.regions.empty() ? 0 : 1;
    for (const ExpectedReshard& reshard : referencePass(program, Gen::C).reshards) {
      ++reshards;
      crossMesh += reshard.opMesh.merged ? 1 : 0;
      unplannable += reshard.plannable ? 0 : 1;
    }
    unbuildableInA += referencePass(program, Gen::A).applies() ? 0 : 1;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  // Every check reads a few programs, and each Program takes a 1 MiB arena
  // chunk: keep such chunks in the heap instead of mapping fresh pages each
  // time (which made this test spend most of its time in the kernel).
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  std::map<std::string, uint64_t> byProperty;
  uint64_t failedPrograms = 0;
  Coverage coverage;
  for (uint64_t i = 0; i < options.count; ++i) {
    const uint64_t seed = options.seed + i;
    const ProgramModel program = generateProgram(seed);
    coverage.add(program);
    if (options.print)
      for (Gen gen : kAllGens)
        std::printf("// seed %llu, generation %s\n%s", static_cast<unsigned long long>(seed),
                    std::string(genName(gen)).c_str(), renderProgram(program, RenderOptions{gen}).text.c_str());
    CheckSettings settings;
    settings.runPlans = options.run;
    settings.passOptions = options.optionsEvery > 0 && i % options.optionsEvery == 0;
    if (!options.tool.empty() && options.toolEvery > 0 && i % options.toolEvery == 0) settings.toolPath = options.tool;
    const std::vector<Failure> failures = Checker(program, settings).run();
    if ((i + 1) % 1000 == 0)
      std::fprintf(stderr, "differential: %llu/%llu programs, %llu failed\n", static_cast<unsigned long long>(i + 1),
                   static_cast<unsigned long long>(options.count),
                   static_cast<unsigned long long>(failedPrograms + (failures.empty() ? 0 : 1)));
    if (failures.empty()) continue;
    ++failedPrograms;
    for (const Failure& failure : failures) ++byProperty[failure.property];
    if (failedPrograms > options.maxShown) {
      std::printf("FAIL seed %llu: %s (generation %s)\n", static_cast<unsigned long long>(seed),
                  failures.front().property.c_str(), std::string(genName(failures.front().gen)).c_str());
      continue;
    }
    std::printf("FAIL seed %llu\n", static_cast<unsigned long long>(seed));
    for (const Failure& failure : failures)
      std::printf("  %s (generation %s): %s\n", failure.property.c_str(), std::string(genName(failure.gen)).c_str(),
                  failure.detail.c_str());
    std::printf("the program (generation %s):\n%s\n", std::string(genName(failures.front().gen)).c_str(),
                renderProgram(program, RenderOptions{failures.front().gen}).text.c_str());
  }
  std::printf("%llu programs (seeds %llu..%llu), %llu failed\n", static_cast<unsigned long long>(options.count),
              static_cast<unsigned long long>(options.seed),
              static_cast<unsigned long long>(options.seed + options.count - 1),
              static_cast<unsigned long long>(failedPrograms));
  std::printf("covered: %llu reshards (generation C), %llu between meshes, %llu unplannable; %llu region ops; "
              "%llu programs gen A cannot apply (unknown ids)\n",
              static_cast<unsigned long long>(coverage.reshards), static_cast<unsigned long long>(coverage.crossMesh),
              static_cast<unsigned long long>(coverage.unplannable),
              static_cast<unsigned long long>(coverage.withRegions),
              static_cast<unsigned long long>(coverage.unbuildableInA));
  for (const auto& [property, count] : byProperty)
    std::printf("  %s: %llu failure(s)\n", property.c_str(), static_cast<unsigned long long>(count));
  return failedPrograms == 0 ? 0 : 1;
}
