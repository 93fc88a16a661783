# Finds MPI for the multi-process (mpirun) runs: the ProcessGroup of
# src/exec/multiprocess/mpi_world.cpp, which the NCCL backend's one process per
# rank and the CPU-side multi-process checks use. Defines reshardctl_add_mpi(target)
# and sets RESHARDCTL_MPI_ENABLED. Looked for in every build (found or not, like
# the GPU backend); quiet when absent, like gpu.cmake.
set(RESHARDCTL_MPI AUTO CACHE STRING "Build the multi-process (mpirun) ProcessGroup over MPI: AUTO, ON or OFF")
set_property(CACHE RESHARDCTL_MPI PROPERTY STRINGS AUTO ON OFF)

set(RESHARDCTL_MPI_ENABLED OFF)
# A bundle (cmake/gpu.cmake RESHARDCTL_BUNDLE) runs where this machine's MPI
# libraries are not: it is built without the mode.
if(RESHARDCTL_BUNDLE)
  if(RESHARDCTL_MPI STREQUAL "ON")
    message(FATAL_ERROR "RESHARDCTL_BUNDLE builds without MPI: leave RESHARDCTL_MPI at AUTO or OFF")
  endif()
  return()
endif()
if(NOT RESHARDCTL_MPI STREQUAL "OFF")
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(RESHARDCTL_MPI_ENABLED ON)
    message(STATUS "reshardctl: building the MPI ProcessGroup (MPI ${MPI_CXX_VERSION}, ${MPIEXEC_EXECUTABLE})")
  elseif(RESHARDCTL_MPI STREQUAL "ON")
    message(FATAL_ERROR "RESHARDCTL_MPI=ON but MPI (C++) was not found (Debian: libopenmpi-dev openmpi-bin)")
  else()
    message(STATUS "reshardctl: MPI ProcessGroup not built (no MPI)")
  endif()
endif()

if(RESHARDCTL_MPI_ENABLED)
  # Adds the MPI ProcessGroup to the library `target` (which then leaves out
  # src/exec/multiprocess/process_group_stub.cpp).
  function(reshardctl_add_mpi target)
    target_sources(${target} PRIVATE ${CMAKE_SOURCE_DIR}/src/exec/multiprocess/mpi_world.cpp)
    # Only MPI's C API is used: its deprecated C++ bindings stay out of mpi.h.
    target_compile_definitions(${target} PRIVATE OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX PUBLIC RESHARDCTL_HAVE_MPI)
    target_link_libraries(${target} PUBLIC MPI::MPI_CXX)
  endfunction()
endif()
