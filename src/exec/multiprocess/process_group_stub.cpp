// startProcessGroup of a build without MPI (CMake compiles src/exec/multiprocess/mpi_world.cpp
// instead where it finds MPI).
#include "exec/multiprocess/process_group.h"

namespace reshardctl {

std::unique_ptr<ProcessGroup> startProcessGroup(std::string* error) {
  if (error != nullptr)
    *error = "reshardctl was built without MPI (rebuild with an MPI such as libopenmpi-dev; see -DRESHARDCTL_MPI)";
  return nullptr;
}

}  // namespace reshardctl
