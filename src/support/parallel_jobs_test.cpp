#include "support/parallel_jobs.h"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace reshardctl {

TEST_CASE("parallel jobs: -j wins; else all cores from the threshold on, one below") {
  setRequestedJobs(0);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  CHECK(jobsFor(10, 1000) == 1);
  CHECK(jobsFor(1000, 1000) == std::min(cores, kMaxJobs));
  setRequestedJobs(3);
  CHECK(jobsFor(10, 1000) == 3);
  CHECK(jobsFor(5000, 1000) == 3);
  setRequestedJobs(100000);
  CHECK(jobsFor(10, 1000) == kMaxJobs);
  setRequestedJobs(0);
  CHECK(jobsFor(10, 1000) == 1);
}

TEST_CASE("runOnThreads: every index once, whatever the threads; a thrown error comes back") {
  for (unsigned jobs : {1u, 2u, 5u}) {
    std::vector<std::atomic<int>> seen(37);
    runOnThreads(seen.size(), jobs, [&](size_t i) { ++seen[i]; });
    for (const auto& count : seen) CHECK(count == 1);
  }
  CHECK_THROWS_AS(runOnThreads(8, 3, [](size_t i) { if (i == 5) throw std::runtime_error("five"); }),
                  std::runtime_error);
}

}  // namespace reshardctl
