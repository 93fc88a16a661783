// The ProcessGroup of a run under mpirun: MPI_COMM_WORLD, and the processes
// sharing this node (MPI_Comm_split_type) for the GPU choice. MPI's default
// error handler (errors are fatal to the whole job) stays: an MPI failure
// must end every process rather than leave some waiting.
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "exec/multiprocess/process_group.h"

namespace reshardctl {

namespace {

constexpr int kPointToPointTag = 1;

int intCount(int64_t count, const char* what) {
  if (count < 0 || count > INT_MAX)
    throw BackendError(fmt::format("{} of {} elements exceeds what one MPI call moves ({})", what, count, INT_MAX));
  return static_cast<int>(count);
}

class MpiWorld final : public ProcessGroup {
 public:
  MpiWorld() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_);
    MPI_Comm_rank(node_, &localRank_);
  }

  ~MpiWorld() override {
    MPI_Comm_free(&node_);
    MPI_Finalize();
  }

  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int localRank() const override { return localRank_; }

  std::vector<int> allGather(int value) override {
    std::vector<int> all(static_cast<size_t>(size_));
    MPI_Allgather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    return all;
  }

  std::vector<std::string> allGather(const std::string& text) override {
    const std::vector<int> lengths = allGather(intCount(std::ssize(text), "a message"));
    std::vector<int> offsets(lengths.size(), 0);
    for (size_t p = 1; p < lengths.size(); ++p) offsets[p] = offsets[p - 1] + lengths[p - 1];
    std::string joined(static_cast<size_t>(offsets.back() + lengths.back()), '\0');
    MPI_Allgatherv(text.data(), lengths[static_cast<size_t>(rank_)], MPI_CHAR, joined.data(), lengths.data(),
                   offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> all;
    for (size_t p = 0; p < lengths.size(); ++p)
      all.push_back(joined.substr(static_cast<size_t>(offsets[p]), static_cast<size_t>(lengths[p])));
    return all;
  }

  void broadcast(std::span<std::byte> bytes, int root) override {
    MPI_Bcast(bytes.data(), intCount(std::ssize(bytes), "a broadcast"), MPI_BYTE, root, MPI_COMM_WORLD);
  }

  std::vector<double> allGatherValues(const std::vector<double>& mine, const std::vector<int64_t>& counts) override {
    // Every process knows all counts, so a count too large throws on all of them alike.
    std::vector<int> sizes, offsets;
    int64_t total = 0;
    for (const int64_t count : counts) {
      sizes.push_back(intCount(count, "a piece"));
      offsets.push_back(intCount(total, "the pieces together"));
      total += count;
    }
    intCount(total, "the pieces together");
    std::vector<double> all(static_cast<size_t>(total));
    MPI_Allgatherv(mine.data(), intCount(std::ssize(mine), "a piece"), MPI_DOUBLE, all.data(), sizes.data(),
                   offsets.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    return all;
  }

  double max(double value) override {
    double result = value;
    MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return result;
  }

  std::vector<std::vector<double>> allToAll(const std::vector<std::vector<double>>& toEach) override {
    // Counts first. One too large for MPI throws BackendError on this process
    // alone: its caller ends every process (the others may wait here).
    std::vector<int> sendCounts, sendOffsets;
    std::vector<double> sent;
    for (const std::vector<double>& values : toEach) {
      sendOffsets.push_back(intCount(std::ssize(sent), "the values sent"));
      sendCounts.push_back(intCount(std::ssize(values), "the values sent"));
      sent.insert(sent.end(), values.begin(), values.end());
    }
    intCount(std::ssize(sent), "the values sent");
    std::vector<int> receiveCounts(static_cast<size_t>(size_));
    MPI_Alltoall(sendCounts.data(), 1, MPI_INT, receiveCounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> receiveOffsets;
    int64_t total = 0;
    for (const int count : receiveCounts) {
      receiveOffsets.push_back(intCount(total, "the values received"));
      total += count;
    }
    std::vector<double> received(static_cast<size_t>(intCount(total, "the values received")));
    MPI_Alltoallv(sent.data(), sendCounts.data(), sendOffsets.data(), MPI_DOUBLE, received.data(),
                  receiveCounts.data(), receiveOffsets.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    std::vector<std::vector<double>> fromEach;
    for (size_t p = 0; p < receiveCounts.size(); ++p)
      fromEach.emplace_back(received.begin() + receiveOffsets[p],
                            received.begin() + receiveOffsets[p] + receiveCounts[p]);
    return fromEach;
  }

  void send(const std::vector<double>& values, int to) override {
    MPI_Send(values.data(), intCount(std::ssize(values), "a message"), MPI_DOUBLE, to, kPointToPointTag,
             MPI_COMM_WORLD);
  }

  std::vector<double> receive(int from) override {
    MPI_Status status;
    MPI_Probe(from, kPointToPointTag, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    std::vector<double> values(static_cast<size_t>(count));
    MPI_Recv(values.data(), count, MPI_DOUBLE, from, kPointToPointTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return values;
  }

  [[noreturn]] void abort(const std::string& message, int code) override {
    std::fprintf(stderr, "reshardctl: error: process %d: %s; ending all %d processes\n", rank_, message.c_str(), size_);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; this is for an MPI that does
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  int localRank_ = 0;
  MPI_Comm node_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<ProcessGroup> startProcessGroup(std::string* error) {
  int started = 0;
  MPI_Initialized(&started);
  if (started == 0 && MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
    if (error != nullptr) *error = "MPI_Init failed";
    return nullptr;
  }
  return std::make_unique<MpiWorld>();
}

}  // namespace reshardctl
