#include "support/ordered_chunks.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace reshardctl {

namespace {

// The pieces in flight: slot i % slots holds piece i from when a worker takes
// it until the writer has written it.
class PieceQueue {
 public:
  PieceQueue(size_t count, size_t slots) : count_(count), slots_(slots), done_(slots, kNone), buffers_(slots) {}

  // The next piece for a worker, once its slot is free; false: none left.
  bool take(size_t& index) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || next_ >= count_ || next_ < written_ + slots_; });
    if (stopped_ || next_ >= count_) return false;
    index = next_++;
    return true;
  }
  OutputSink& buffer(size_t index) {
    std::unique_ptr<OutputSink>& slot = buffers_[index % slots_];
    if (!slot) slot = std::make_unique<OutputSink>();
    return *slot;
  }
  void finished(size_t index) {
    std::lock_guard lock(mutex_);
    done_[index % slots_] = index;
    changed_.notify_all();
  }
  // The writer: waits for piece `index`; false once stopped.
  bool waitFor(size_t index) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || done_[index % slots_] == index; });
    return !stopped_;
  }
  void written(size_t index) {
    buffers_[index % slots_]->clear();
    std::lock_guard lock(mutex_);
    written_ = index + 1;
    changed_.notify_all();
  }
  void stop(std::exception_ptr error = nullptr) {
    std::lock_guard lock(mutex_);
    if (error && !error_) error_ = error;
    stopped_ = true;
    changed_.notify_all();
  }
  std::exception_ptr error() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  const size_t count_;
  const size_t slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t next_ = 0;     // the next piece to hand out
  size_t written_ = 0;  // pieces written so far
  bool stopped_ = false;
  std::exception_ptr error_;
  std::vector<size_t> done_;  // by slot: the piece finished in it
  std::vector<std::unique_ptr<OutputSink>> buffers_;
};

void work(PieceQueue& queue, const PieceProducer& produce) {
  try {
    for (size_t index = 0; queue.take(index);) {
      produce(index, queue.buffer(index));
      queue.finished(index);
    }
  } catch (...) {
    queue.stop(std::current_exception());
  }
}

}  // namespace

void writePiecesInOrder(size_t count, unsigned jobs, OutputSink& out, const PieceProducer& produce) {
  if (jobs <= 1 || count <= 1) {
    for (size_t index = 0; index < count && !out.failed(); ++index) produce(index, out);
    return;
  }
  // One piece being written, one being made by each thread, and one spare.
  PieceQueue queue(count, std::min<size_t>(count, size_t{jobs} + 2));
  std::vector<std::thread> workers;
  workers.reserve(jobs);
  try {
    for (unsigned j = 0; j < jobs; ++j) workers.emplace_back(work, std::ref(queue), std::cref(produce));
    for (size_t index = 0; index < count && queue.waitFor(index); ++index) {
      out.write(queue.buffer(index).view());
      if (out.failed()) break;
      queue.written(index);
    }
  } catch (...) {  // a thread that cannot start, or the write running out of memory
    queue.stop(std::current_exception());
  }
  queue.stop();
  for (std::thread& worker : workers) worker.join();
  if (std::exception_ptr error = queue.error()) std::rethrow_exception(error);
}

}  // namespace reshardctl
