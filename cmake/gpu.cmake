# Finds CUDA and NCCL for the GPU backend (src/exec/gpu) and defines
# reshardctl_add_gpu_backend(target). Sets RESHARDCTL_GPU_ENABLED.
#
# Nothing here warns when CUDA is absent: a plain Debian build (no nvcc) sees only
# check_language's status line and builds the stub backend.
set(RESHARDCTL_GPU_ENABLED OFF)
if(NOT RESHARDCTL_GPU STREQUAL "OFF")
  # nvcc outside PATH: the usual toolkit location still counts as "found".
  if(NOT DEFINED ENV{CUDACXX} AND NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
  endif()
  # Hopper (H100/H200) unless the caller names targets: sm_90 machine code, so
  # the driver does not JIT older PTX at start.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  set(_reshardctl_gpu_missing "")
  if(CMAKE_CUDA_COMPILER)
    get_filename_component(_reshardctl_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    get_filename_component(_reshardctl_cuda_root "${_reshardctl_cuda_bin}" DIRECTORY)
    find_package(CUDAToolkit QUIET)
    find_path(RESHARDCTL_NCCL_INCLUDE_DIR nccl.h
              HINTS ${CUDAToolkit_INCLUDE_DIRS} ${_reshardctl_cuda_root}/include /usr/local/cuda/include)
    find_library(RESHARDCTL_NCCL_LIBRARY nccl
                 HINTS ${CUDAToolkit_LIBRARY_DIR} ${_reshardctl_cuda_root}/lib64 /usr/local/cuda/lib64)
    if(CUDAToolkit_FOUND AND RESHARDCTL_NCCL_INCLUDE_DIR AND RESHARDCTL_NCCL_LIBRARY)
      set(RESHARDCTL_GPU_ENABLED ON)
    else()
      set(_reshardctl_gpu_missing "NCCL (nccl.h and libnccl) or the CUDA toolkit libraries")
    endif()
  else()
    set(_reshardctl_gpu_missing "a CUDA compiler (nvcc)")
  endif()
  if(NOT RESHARDCTL_GPU_ENABLED)
    if(RESHARDCTL_GPU STREQUAL "ON")
      message(FATAL_ERROR "RESHARDCTL_GPU=ON but ${_reshardctl_gpu_missing} was not found")
    endif()
    message(STATUS "reshardctl: NCCL backend not built (no ${_reshardctl_gpu_missing})")
  endif()
endif()

if(RESHARDCTL_GPU_ENABLED)
  enable_language(CUDA)
  # CMake 3.25 knows no C++20 flag for nvcc; the kernels need only C++17.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  message(STATUS "reshardctl: building the NCCL backend (${RESHARDCTL_NCCL_LIBRARY}, sm ${CMAKE_CUDA_ARCHITECTURES})")
  add_library(reshardctl_nccl UNKNOWN IMPORTED)
  # An imported target's include dir is a system one: NCCL's header is not held
  # to this project's -Werror.
  set_target_properties(reshardctl_nccl PROPERTIES IMPORTED_LOCATION "${RESHARDCTL_NCCL_LIBRARY}"
                                                   INTERFACE_INCLUDE_DIRECTORIES "${RESHARDCTL_NCCL_INCLUDE_DIR}")

  # Adds the backend to the library `target` and builds gpu_selftest on it.
  function(reshardctl_add_gpu_backend target)
    set(gpu_dir ${CMAKE_SOURCE_DIR}/src/exec/gpu)
    target_sources(${target} PRIVATE ${gpu_dir}/nccl_backend.cpp ${gpu_dir}/nccl_setup.cpp ${gpu_dir}/device_buffer.cpp
                                     ${gpu_dir}/cuda_kernels.cu)
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra;--expt-relaxed-constexpr;-lineinfo>")
    target_link_libraries(${target} PUBLIC CUDA::cudart reshardctl_nccl)

    add_executable(gpu_selftest ${gpu_dir}/gpu_selftest.cpp)
    target_link_libraries(gpu_selftest PRIVATE ${target})
    set_target_properties(gpu_selftest PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
    # Exit 77: no GPU here, the test is skipped rather than failed.
    add_test(NAME gpu.selftest.quick COMMAND gpu_selftest --quick)
    set_tests_properties(gpu.selftest.quick PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
  endfunction()
endif()
