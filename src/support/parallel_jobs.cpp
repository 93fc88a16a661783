#include "support/parallel_jobs.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

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

void runOnThreads(size_t count, unsigned jobs, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto worker = [&] {
    try {
      for (size_t i; (i = next++) < count;) work(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::min<size_t>(jobs, count); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace reshardctl
