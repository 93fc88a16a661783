// The processes of a multi-process run (one per rank, started by mpirun), as
// `run` and the NCCL backend use them. An interface without MPI types, so the
// code that uses it builds everywhere; MPI implements it (src/exec/multiprocess/mpi_world.cpp,
// built when CMake finds MPI), and startProcessGroup says why not elsewhere.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace reshardctl {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;  // the last MPI call (MPI_Finalize)

  virtual int rank() const = 0;       // world rank
  virtual int size() const = 0;       // world size
  virtual int localRank() const = 0;  // among the processes of this node: picks the GPU

  // Collectives: every process must call them, in the same order.
  virtual std::vector<int> allGather(int value) = 0;
  // Every process's text, in world-rank order.
  virtual std::vector<std::string> allGather(const std::string& text) = 0;
  virtual void broadcast(std::span<std::byte> bytes, int root) = 0;
  // counts[p] values from process p (this process gives `mine`), concatenated.
  virtual std::vector<double> allGatherValues(const std::vector<double>& mine, const std::vector<int64_t>& counts) = 0;
  virtual double max(double value) = 0;
  // toEach[p] to process p (this process's own entry is handed back); what
  // each process sent this one, in process order.
  virtual std::vector<std::vector<double>> allToAll(const std::vector<std::vector<double>>& toEach) = 0;
  // Point to point, in order between each pair of processes: `values` to
  // process `to`, and what process `from` sends next (as many as it sent).
  virtual void send(const std::vector<double>& values, int to) = 0;
  virtual std::vector<double> receive(int from) = 0;

  // Prints `message` as an error and ends every process with `code`: the way out
  // when this process cannot go on and the others may be waiting for it.
  [[noreturn]] virtual void abort(const std::string& message, int code) = 0;
};

// MPI_Init and the world, or nullptr and why in *error (built without MPI,
// MPI_Init failed).
std::unique_ptr<ProcessGroup> startProcessGroup(std::string* error);

}  // namespace reshardctl
