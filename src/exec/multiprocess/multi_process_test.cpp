#include <doctest/doctest.h>

#include <map>
#include <string>

#include "exec/multiprocess/multi_process.h"

using namespace reshardctl;

namespace {

EnvLookup envOf(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto found = vars.find(name);
    return found == vars.end() ? nullptr : found->second.c_str();
  };
}

}  // namespace

TEST_CASE("multi-process: the launcher's environment gives the launch away") {
  CHECK_FALSE(detectMpiLaunch(envOf({})).has_value());
  CHECK_FALSE(detectMpiLaunch(envOf({{"OMPI_COMM_WORLD_RANK", "0"}})).has_value());  // no size: not Open MPI's launch

  auto ompi = detectMpiLaunch(envOf({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "3"}}));
  REQUIRE(ompi.has_value());
  CHECK(ompi->variable == "OMPI_COMM_WORLD_SIZE");
  CHECK(ompi->size == 4);
  CHECK(ompi->rank == 3);

  auto hydra = detectMpiLaunch(envOf({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}}));
  REQUIRE(hydra.has_value());
  CHECK(hydra->size == 2);
  CHECK(hydra->rank == 1);

  auto pmix = detectMpiLaunch(envOf({{"PMIX_RANK", "0"}}));
  REQUIRE(pmix.has_value());
  CHECK(pmix->variable == "PMIX_RANK");
  CHECK_FALSE(pmix->size.has_value());  // MPI_Comm_size tells it later
  CHECK(pmix->rank == 0);

  auto garbled = detectMpiLaunch(envOf({{"OMPI_COMM_WORLD_SIZE", "2x"}}));
  REQUIRE(garbled.has_value());  // launched all the same; the number is unknown
  CHECK_FALSE(garbled->size.has_value());
}

TEST_CASE("multi-process: one process per rank, in process-id order") {
  const std::vector<int64_t> ranks{0, 1, 4, 5};
  CHECK(processCountProblem(ranks, 4).empty());
  const std::string problem = processCountProblem(ranks, 3);
  CHECK(problem.find("4 rank(s) (process ids 0,1,4,5)") != std::string::npos);
  CHECK(problem.find("3 MPI process(es)") != std::string::npos);
  CHECK(problem.find("mpirun -np 4") != std::string::npos);
  CHECK_FALSE(processCountProblem(ranks, 5).empty());
  CHECK(rankOfProcess(ranks, 0) == 0);
  CHECK(rankOfProcess(ranks, 2) == 4);
  CHECK(rankOfProcess(ranks, 3) == 5);
  CHECK_THROWS(rankOfProcess(ranks, 4));
}

TEST_CASE("multi-process: the worst status wins, and someone who failed prints") {
  CHECK(agreeOnStatus({0, 0, 0}).status == 0);
  CHECK(agreeOnStatus({0, 0, 0}).printer == 0);
  // All failed alike: process 0 speaks for all.
  CHECK(agreeOnStatus({1, 1}).status == 1);
  CHECK(agreeOnStatus({1, 1}).printer == 0);
  // Process 0 succeeded: the first that failed prints its own messages.
  const AgreedStatus lone = agreeOnStatus({0, 0, 2, 1});
  CHECK(lone.status == 2);
  CHECK(lone.printer == 2);
  CHECK(agreeOnStatus({0, 1, 2}).printer == 1);
  // Process 0 failed too: its messages are printed, the exit is the worst.
  const AgreedStatus both = agreeOnStatus({1, 2});
  CHECK(both.status == 2);
  CHECK(both.printer == 0);
}

TEST_CASE("multi-process: the first problem is every process's problem") {
  CHECK(firstProblem({"", "", ""}).empty());
  CHECK(firstProblem({"no usable GPU", "no usable GPU"}) == "no usable GPU");
  CHECK(firstProblem({"", "2 processes on this node need 2 GPUs", "x"}) ==
        "process 1: 2 processes on this node need 2 GPUs");
}

TEST_CASE("multi process: of the processes' problems, the one at the lowest mesh position") {
  using reshardctl::lowestPositionedProblem;
  using reshardctl::positionedProblem;
  CHECK(lowestPositionedProblem({"", ""}).empty());
  CHECK(lowestPositionedProblem({positionedProblem(7, "rank 7: a\tb"), "", positionedProblem(3, "rank 3")}) ==
        "rank 3");
  CHECK(lowestPositionedProblem({positionedProblem(2, "first"), positionedProblem(2, "second")}) == "first");
  CHECK(lowestPositionedProblem({"", positionedProblem(0, "a tab\tinside")}) == "a tab\tinside");
}
