#include "support/parallel_jobs.h"

#include <doctest/doctest.h>

#include <thread>

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

}  // namespace reshardctl
