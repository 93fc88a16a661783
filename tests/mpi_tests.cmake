# Runs under mpirun (registered only when CMake built the MPI ProcessGroup,
# cmake/mpi.cmake).
set(MPI_CASE ${CMAKE_SOURCE_DIR}/tests/mpi_case.sh)
set(MPIRUN ${MPIEXEC_EXECUTABLE} ${MPIEXEC_PREFLAGS})
# Open MPI's settings as environment variables, which other MPIs ignore:
# containers run tests as root, and more processes than cores is fine here.
set(MPI_TEST_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1)
# Open MPI keeps what MPI_Init allocates past MPI_Finalize, which LeakSanitizer
# would report as leaks of reshardctl's.
if(RESHARDCTL_SANITIZE)
  list(APPEND MPI_TEST_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1")
endif()

# Multi-process `run --backend nccl` (only beside the NCCL backend). What runs
# without a GPU: the process count check, and every process agreeing that
# there is no GPU. Each must end quickly with exit 2 and one message from
# process 0, never hang.
if(RESHARDCTL_GPU_ENABLED)
set(RUN_SEED $<TARGET_FILE:reshardctl> run --backend nccl --apply samples/seed_mlp_before.ir)

# seed_mlp_before uses process ids 0 and 1.
add_test(NAME mpi.wrong-process-count
         COMMAND ${MPI_CASE} 2 "^reshardctl: error: the plans use 2 rank\\(s\\).*but 3 MPI process\\(es\\)" 60
                 ${MPIRUN} ${MPIEXEC_NUMPROC_FLAG} 3 ${RUN_SEED}
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME mpi.no-gpu
         COMMAND ${MPI_CASE} 2 "^reshardctl: error: the nccl backend is not available: no usable GPU" 60 --skip-with-gpu
                 ${MPIRUN} ${MPIEXEC_NUMPROC_FLAG} 2 ${RUN_SEED}
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# Bad input on every process: one report, exit 1, before MPI is asked for more.
add_test(NAME mpi.bad-input
         COMMAND ${MPI_CASE} 1 "error: " 60
                 ${MPIRUN} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:reshardctl> run --backend nccl
                 tests/golden/errors/bad-truncated.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(mpi.wrong-process-count mpi.no-gpu mpi.bad-input PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${MPI_TEST_ENV}")
# --launcher mpi without mpirun: MPI as a singleton, the multi-process path on
# one process (what scripts/gpu-check.sh runs on one GPU).
add_test(NAME mpi.singleton-no-gpu
         COMMAND ${MPI_CASE} 2 "^reshardctl: error: the nccl backend is not available: no usable GPU" 60 --skip-with-gpu
                 $<TARGET_FILE:reshardctl> run --backend nccl --launcher mpi --apply samples/single_rank.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(mpi.singleton-no-gpu PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 ENVIRONMENT "${MPI_TEST_ENV}")
endif()

# The MPI ProcessGroup itself on three processes: its collectives, the piece
# exchange end to end, and abort ending processes that wait in a collective.
add_executable(mpi_world_check ${CMAKE_SOURCE_DIR}/tests/mpi_world_check.cpp)
target_link_libraries(mpi_world_check PRIVATE reshardctl_exec)
add_test(NAME mpi.process-group
         COMMAND ${MPI_CASE} 0 "^mpi_world_check: ok$" 60 ${MPIRUN} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:mpi_world_check>)
add_test(NAME mpi.abort-ends-all
         COMMAND ${MPI_CASE} 3 "^reshardctl: error: process 1: abort test" 60
                 ${MPIRUN} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:mpi_world_check> abort)
set_tests_properties(mpi.process-group mpi.abort-ends-all PROPERTIES TIMEOUT 90 ENVIRONMENT "${MPI_TEST_ENV}")

# validate under mpirun: the ranks shared out over the processes
# (interp/share/rank_share.h) give the one-process run's answer, every
# divergence, exit status and diagnostic alike, with one summary `on R ranks in
# P processes`: a matching sample, every divergence of a wrongly annotated
# program (--all), a 2x2 mesh, control flow, on 2 and 3 processes.
set(MPI_VALIDATE ${CMAKE_SOURCE_DIR}/tests/mpi_validate_case.sh $<TARGET_FILE:reshardctl>)
add_test(NAME mpi.validate-sample COMMAND ${MPI_VALIDATE} 2 --apply samples/seed_mlp_before.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME mpi.validate-all-divergences
         COMMAND ${MPI_VALIDATE} 3 --apply --all tests/golden/validate/all_divergences.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME mpi.validate-2x2 COMMAND ${MPI_VALIDATE} 3 samples/tp_mlp_2x2_before.ir --apply
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME mpi.validate-if-blocks COMMAND ${MPI_VALIDATE} 2 tests/golden/pass/if_blocks.ir --apply --seed 3
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(mpi.validate-sample mpi.validate-all-divergences mpi.validate-2x2 mpi.validate-if-blocks
                     PROPERTIES TIMEOUT 150 SKIP_RETURN_CODE 77 ENVIRONMENT "${MPI_TEST_ENV}")
# Memory per process: each process makes its share of the pieces (1/P), and
# receives only what its ranks read (scripts/many_ranks.py: 64 ranks).
add_test(NAME mpi.validate-share-memory COMMAND ${CMAKE_SOURCE_DIR}/tests/mpi_share_case.sh $<TARGET_FILE:reshardctl> 4
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# run --backend cpu under mpirun shares the ranks out the same way: the rows
# of one process, `on R ranks in P processes`. On 3 processes the groups of a
# 2x2 mesh, and of 64 ranks, straddle processes: pieces travel.
set(MPI_RUN ${CMAKE_SOURCE_DIR}/tests/mpi_run_case.sh $<TARGET_FILE:reshardctl>)
add_test(NAME mpi.run-cpu-2x2 COMMAND ${MPI_RUN} 3 --apply samples/tp_mlp_2x2_before.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME mpi.run-cpu-seed COMMAND ${MPI_RUN} 2 --apply samples/seed_mlp_before.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# Partial destinations (P(SUM) <-> P(AVG), some after a move): their pieces
# reduce across ranks, so the check gathers them.
add_test(NAME mpi.run-cpu-partial COMMAND ${MPI_RUN} 3 --apply tests/golden/plan/partial_rescale.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(mpi.validate-share-memory mpi.run-cpu-2x2 mpi.run-cpu-seed mpi.run-cpu-partial
                     PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 ENVIRONMENT "${MPI_TEST_ENV}")
# What is not shared out yet is refused (exit 2), process 0 alone saying why.
add_test(NAME mpi.validate-lowered-refused
         COMMAND ${MPI_CASE} 2 "^reshardctl: error: validate --lowered runs in one process" 60
                 ${MPIRUN} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:reshardctl> validate --lowered --apply
                 samples/seed_mlp_before.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(mpi.validate-lowered-refused PROPERTIES TIMEOUT 90 ENVIRONMENT "${MPI_TEST_ENV}")

# Open MPI 4's mpiexec makes its session directory (/tmp/ompi.HOST.UID) with a
# race: two started at the same moment can fail orte_init ("A call to mkdir
# was unable to create the desired directory ... File exists"), seen under
# `ctest -j`. The MPI cases take turns.
get_directory_property(mpi_cases TESTS)
list(FILTER mpi_cases INCLUDE REGEX "^mpi\\.")
set_property(TEST ${mpi_cases} APPEND PROPERTY RESOURCE_LOCK openmpi_session_directory)
