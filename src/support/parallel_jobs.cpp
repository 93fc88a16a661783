#include "support/parallel_jobs.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace reshardctl {

namespace {

std::atomic<unsigned> requestedJobs{0};  // 0: not given

}  // namespace

void setRequestedJobs(unsigned jobs) { requestedJobs = std::min(jobs, kMaxJobs); }

unsigned jobsFor(size_t size, size_t threshold) {
  if (const unsigned jobs = requestedJobs; jobs != 0) return jobs;
  if (size < threshold) return 1;
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxJobs);
}

}  // namespace reshardctl
