// How many threads this run's parallel work uses: one setting for the whole
// process (`-j N` or RESHARDCTL_JOBS, read by the command line), asked by each
// stage that splits its work (the parse, the verifier, the partition pass's
// analysis, the printer). Unset: all cores for work above the caller's
// threshold and one below it, where starting threads costs more than the
// work. And the one way those stages run indexed work on that many threads.
#pragma once

#include <cstddef>
#include <functional>

namespace reshardctl {

// The largest -j accepted: more threads than this only divide the same cores
// finer, and each holds a chunk of output in memory.
inline constexpr unsigned kMaxJobs = 256;

// The run's -j (clamped to kMaxJobs; 0: unset); set before any work starts.
void setRequestedJobs(unsigned jobs);

// The threads for work of `size` units whose threshold is `threshold`: the
// run's -j when set, else all cores when size >= threshold, else 1.
unsigned jobsFor(size_t size, size_t threshold);

// Runs work(0..count-1) on `jobs` threads (this one among them), each index
// once, whichever thread is free taking the next (so unequal items balance);
// the first exception is rethrown here once every thread has ended.
void runOnThreads(size_t count, unsigned jobs, const std::function<void(size_t)>& work);

}  // namespace reshardctl
