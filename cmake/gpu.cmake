# Finds CUDA and NCCL's header for the GPU backend (src/exec/gpu) and defines
# reshardctl_add_gpu_backend(target) and reshardctl_add_gpu_tests(target). Sets
# RESHARDCTL_GPU_ENABLED and RESHARDCTL_GPU_ONLY_TESTS (the unit-test files that
# need CUDA's and NCCL's headers, left out of builds without them).
#
# NCCL is not linked: the backend opens libnccl.so.2 at run time
# (src/exec/gpu/nccl_library.h), so only nccl.h is needed here and the binaries
# run with whichever NCCL the machine has. The CUDA runtime is linked statically
# (libcudart_static.a): the binaries need only the driver's libcuda.so.1, which
# the runtime opens itself.
#
# RESHARDCTL_BUNDLE=ON (scripts/gpu-bundle.sh) builds binaries that run on a
# machine without this one's packages: libstdc++ and libgcc linked in, fmt
# compiled in (header-only), RUNPATH $ORIGIN/../lib, no MPI.
#
# Nothing here warns when CUDA is absent: a plain Debian build (no nvcc) sees only
# check_language's status line and builds the stub backend.
set(RESHARDCTL_GPU_ENABLED OFF)
set(RESHARDCTL_GPU_ONLY_TESTS "/src/exec/gpu/nccl_[a-z_]*_test\\.cpp$")
option(RESHARDCTL_BUNDLE "Build self-contained binaries for scripts/gpu-bundle.sh" OFF)
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
    if(CUDAToolkit_FOUND AND TARGET CUDA::cudart_static AND RESHARDCTL_NCCL_INCLUDE_DIR)
      set(RESHARDCTL_GPU_ENABLED ON)
    else()
      set(_reshardctl_gpu_missing "NCCL's header (nccl.h) or the CUDA toolkit's static runtime")
    endif()
  else()
    set(_reshardctl_gpu_missing "a CUDA compiler (nvcc)")
  endif()
  if(NOT RESHARDCTL_GPU_ENABLED)
    if(RESHARDCTL_GPU STREQUAL "ON" OR RESHARDCTL_BUNDLE)
      message(FATAL_ERROR "RESHARDCTL_GPU=ON (or RESHARDCTL_BUNDLE) but ${_reshardctl_gpu_missing} was not found")
    endif()
    message(STATUS "reshardctl: NCCL backend not built (no ${_reshardctl_gpu_missing})")
  endif()
elseif(RESHARDCTL_BUNDLE)
  message(FATAL_ERROR "RESHARDCTL_BUNDLE needs the GPU backend (RESHARDCTL_GPU AUTO or ON)")
endif()

if(RESHARDCTL_BUNDLE)
  # fmt compiled into every object (Debian ships no static libfmt); the shared
  # one, still named by fmt::fmt, is then not needed and --as-needed drops it.
  # --gc-sections drops the parts of libstdc++ nothing calls (std::random_device
  # would need glibc 2.36's arc4random): the binaries need glibc 2.35.
  add_compile_definitions(FMT_HEADER_ONLY=1)
  add_link_options(-static-libstdc++ -static-libgcc LINKER:--as-needed LINKER:--gc-sections)
  # Exactly one RUNPATH entry. CMake's build RPATH (CMAKE_BUILD_RPATH) came
  # out as "$ORIGIN/../lib:" with an empty entry, which makes the loader
  # search the current directory; the install RPATH is used as written.
  set(CMAKE_BUILD_WITH_INSTALL_RPATH ON)
  set(CMAKE_INSTALL_RPATH "\$ORIGIN/../lib")
endif()

if(RESHARDCTL_GPU_ENABLED)
  enable_language(CUDA)
  # CMake 3.25 knows no C++20 flag for nvcc; the kernels need only C++17.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  message(STATUS "reshardctl: building the NCCL backend (nccl.h in ${RESHARDCTL_NCCL_INCLUDE_DIR}, "
                 "libnccl.so.2 opened at run time; sm ${CMAKE_CUDA_ARCHITECTURES})")
  # An interface target's include dir is a system one: NCCL's header is not
  # held to this project's -Werror. Headers only: nothing links libnccl.
  add_library(reshardctl_nccl_headers INTERFACE)
  target_include_directories(reshardctl_nccl_headers SYSTEM INTERFACE "${RESHARDCTL_NCCL_INCLUDE_DIR}")

  # Adds the backend to the library `target` and builds gpu_selftest on it.
  function(reshardctl_add_gpu_backend target)
    set(gpu_dir ${CMAKE_SOURCE_DIR}/src/exec/gpu)
    target_sources(${target} PRIVATE ${gpu_dir}/nccl_backend.cpp ${gpu_dir}/nccl_setup.cpp ${gpu_dir}/nccl_library.cpp
                                     ${gpu_dir}/nccl_comms.cpp ${gpu_dir}/device_buffer.cpp ${gpu_dir}/cuda_kernels.cu)
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Static)
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra;--expt-relaxed-constexpr;-lineinfo>")
    target_link_libraries(${target} PUBLIC CUDA::cudart_static reshardctl_nccl_headers ${CMAKE_DL_LIBS})

    add_executable(gpu_selftest ${gpu_dir}/gpu_selftest.cpp)
    target_link_libraries(gpu_selftest PRIVATE ${target})
    set_target_properties(gpu_selftest PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
    # Exit 77: no GPU here, the test is skipped rather than failed.
    add_test(NAME gpu.selftest.quick COMMAND gpu_selftest --quick)
    set_tests_properties(gpu.selftest.quick PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
  endfunction()

  # Fake libnccl.so.2 files for the loader's tests (nccl_library_test.cpp): an
  # NCCL 2.27 without ncclAlltoAll, a 2.30, one too old, one lacking a symbol.
  # Each in its own folder, as RESHARDCTL_NCCL_LIB may name a folder.
  function(reshardctl_add_gpu_tests target)
    foreach(fake IN ITEMS 2_27 2_30 too_old incomplete)
      set(name reshardctl_fake_nccl_${fake})
      add_library(${name} SHARED ${CMAKE_SOURCE_DIR}/tests/fake_nccl.cpp)
      string(TOUPPER "${fake}" variant)
      target_compile_definitions(${name} PRIVATE FAKE_NCCL_${variant})
      set_target_properties(${name} PROPERTIES OUTPUT_NAME nccl SUFFIX ".so.2" PREFIX "lib"
                                               LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fake-nccl/${fake})
      add_dependencies(${target} ${name})
    endforeach()
    target_compile_definitions(${target} PRIVATE RESHARDCTL_FAKE_NCCL_DIR="${PROJECT_BINARY_DIR}/fake-nccl")

    # `run --backend nccl` with an unusable NCCL: exit 2 and why (the GPU is
    # not looked at before NCCL loads).
    foreach(case IN ITEMS "too-old|too_old|NCCL 2\\.15\\.5 is older than 2\\.18\\.0"
                          "incomplete|incomplete|NCCL 2\\.28\\.9 lacks ncclCommSplit"
                          "missing|none|fake-nccl/none \\(from RESHARDCTL_NCCL_LIB\\): .*No such file")
      string(REPLACE "|" ";" parts "${case}")
      list(GET parts 0 name)
      list(GET parts 1 folder)
      list(GET parts 2 pattern)
      add_test(NAME gpu.nccl-${name}
               COMMAND sh ${CMAKE_SOURCE_DIR}/tests/nccl_unusable.sh $<TARGET_FILE:reshardctl>
                       ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir "${pattern}")
      set_tests_properties(gpu.nccl-${name} PROPERTIES ENVIRONMENT "RESHARDCTL_NCCL_LIB=${PROJECT_BINARY_DIR}/fake-nccl/${folder}")
    endforeach()

    # scripts/gpu-check.sh's own logic on a machine without a GPU: its "no GPU"
    # outcome, and its whole course under a fake nvidia-smi and a fake pip NCCL
    # 2.30 (tests/gpu_check_test.sh). Skipped where a GPU is.
    add_test(NAME gpu.check-script
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/gpu_check_test.sh ${CMAKE_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                     $<TARGET_FILE:reshardctl> $<TARGET_FILE:gpu_selftest>)
    set_tests_properties(gpu.check-script PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
    find_program(RESHARDCTL_SHELLCHECK shellcheck)
    if(RESHARDCTL_SHELLCHECK)
      add_test(NAME gpu.shellcheck COMMAND ${RESHARDCTL_SHELLCHECK} ${CMAKE_SOURCE_DIR}/scripts/gpu-check.sh
                                           ${CMAKE_SOURCE_DIR}/scripts/gpu-bundle.sh ${CMAKE_SOURCE_DIR}/tests/gpu_check_test.sh)
    endif()
  endfunction()
endif()
