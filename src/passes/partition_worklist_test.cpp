#include "passes/partition_worklist.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ir/parallel/op_ranges.h"
#include "passes/partition_pass.h"
#include "support/parallel_jobs.h"
#include "syntax/printer.h"
#include "syntax/testing.h"

namespace reshardctl {

namespace {

// The program files of the repository: samples and golden inputs.
std::vector<std::string> programFiles() {
  std::vector<std::string> files;
  for (const char* folder : {"samples", "tests/golden"}) {
    const std::filesystem::path root = std::filesystem::path(RESHARDCTL_SOURCE_DIR) / folder;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      const std::string path = entry.path().string();
      if (entry.path().extension() == ".ir" && path.find("fragments") == std::string::npos)
        files.push_back(std::filesystem::relative(entry.path(), RESHARDCTL_SOURCE_DIR).string());
    }
  }
  return files;
}

// What a run of the pass with -j `jobs` says and leaves: its diagnostics,
// what it inserted and erased, and the program printed on one thread.
std::string passOutcome(const std::string& text, const PartitionOptions& options, unsigned jobs) {
  setRequestedJobs(jobs);
  testing::Parsed parsed = testing::parse(text);
  if (!parsed.program) return "unparsed: " + parsed.errors();
  PartitionResult result = applyPartitionPass(*parsed.program, *parsed.diagnostics, options);
  setRequestedJobs(0);
  return fmt::format("{} inserted, {} combines, {} erased, ok {}\n{}{}", result.inserted.size(),
                     result.combines.size(), result.erased, result.ok, parsed.errors(),
                     printProgramToString(*parsed.program, PrinterOptions{.jobs = 1}));
}

}  // namespace

TEST_CASE("partition pass: the search on threads gives the serial walk's output, with every switch") {
  size_t compared = 0;
  for (const std::string& file : programFiles()) {
    const std::string text = testing::readRepoFile(file);
    for (int switches = 0; switches < 16; ++switches) {
      INFO(file << " switches " << switches);
      PartitionOptions options;
      options.splitCrossMesh = switches & 1;
      options.fold = switches & 2;
      options.dedupe = switches & 4;
      options.reshardResults = switches & 8;
      const std::string serial = passOutcome(text, options, 1);
      CHECK(passOutcome(text, options, 3) == serial);
      CHECK(passOutcome(text, options, 8) == serial);
      ++compared;
    }
  }
  CHECK(compared > 100);
}

TEST_CASE("partition pass: the ops to visit come in the walk's order, nested blocks before their op") {
  testing::Parsed parsed = testing::parse(testing::readRepoFile("tests/golden/pass/if_blocks.ir"));
  REQUIRE(parsed.program);
  std::vector<Operation*> walked;
  auto walk = [&](const Block& block, auto&& self) -> void {
    for (Operation* op : block) {
      for (const Block* region : op->regions()) self(*region, self);
      walked.push_back(op);
    }
  };
  walk(*parsed.program->body(), walk);
  REQUIRE(walked.size() > parsed.program->body()->size());  // it has nested ops
  for (unsigned jobs : {1u, 2u, 5u}) {
    setRequestedJobs(jobs);
    CHECK(opsToVisit(*parsed.program, [](const Operation&) { return true; }) == walked);
    setRequestedJobs(0);
  }
}

}  // namespace reshardctl
