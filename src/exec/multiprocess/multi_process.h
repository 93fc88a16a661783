// How `run --backend nccl` spreads over processes when mpirun starts it: one
// process per rank. Host logic only (no MPI here, so it is unit-tested in every
// build): detecting the launch from the launcher's environment, which rank each
// process owns, and how the processes' exit statuses become one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace reshardctl {

// What the launcher's environment says about this process.
struct MpiLaunch {
  std::string variable;       // what gave the launch away, e.g. OMPI_COMM_WORLD_SIZE
  std::optional<int> size;    // the world size, where the launcher tells it
  std::optional<int> rank;    // this process's world rank, where the launcher tells it
};

using EnvLookup = std::function<const char*(const char*)>;

// Open MPI (OMPI_COMM_WORLD_SIZE), MPICH/Hydra and Slurm PMI (PMI_SIZE) and PMIx
// launchers (PMIX_RANK); nullopt when none is set.
std::optional<MpiLaunch> detectMpiLaunch(const EnvLookup& lookup);

// The sorted distinct process ids of the plans: process p (world rank p) owns
// ranks[p]. Empty when the counts match, else the error to print.
std::string processCountProblem(const std::vector<int64_t>& ranks, int processes);

// The process id owned by world rank `process` (ranks sorted and distinct).
int64_t rankOfProcess(const std::vector<int64_t>& ranks, int process);

// Every process's status after a stage, in world-rank order, made one: all
// processes exit with the worst (highest) status, and `printer` is the process
// whose messages are printed: process 0 unless it succeeded where another
// failed, then the first that failed (its messages would be lost otherwise).
struct AgreedStatus {
  int status = 0;
  int printer = 0;
};
AgreedStatus agreeOnStatus(const std::vector<int>& statuses);

// The problem text all processes report for a stage, given each one's (empty:
// none): the first non-empty, naming its process when that is not process 0.
std::string firstProblem(const std::vector<std::string>& problems);

// A problem found at a mesh position, as a process tells the others
// ("POSITION\tMESSAGE"; "" for none); of every process's, the message at the
// lowest position (the one a single process, going position by position,
// meets first), or "" when none found one.
std::string positionedProblem(int64_t position, const std::string& message);
std::string lowestPositionedProblem(const std::vector<std::string>& problems);

}  // namespace reshardctl
