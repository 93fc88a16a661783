// startProcessGroup of a build without MPI (CMake compiles src/exec/gpu/mpi_world.cpp
// instead where it finds MPI next to CUDA and NCCL).
#include "exec/multiprocess/process_group.h"

namespace reshardctl {

std::unique_ptr<ProcessGroup> startProcessGroup(std::string* error) {
  if (error != nullptr)
    *error = "reshardctl was built without MPI (rebuild with CUDA, NCCL and an MPI such as libopenmpi-dev; "
             "see -DRESHARDCTL_MPI)";
  return nullptr;
}

}  // namespace reshardctl
