# Resource faults and hostile inputs (tests/resource_faults.sh): out of memory,
# endless and binary input, the input size limit, write errors, flag values,
# sizes that overflow 64 bits, output files kept whole. Fast and deterministic.
set(RESOURCE_FAULTS ${CMAKE_SOURCE_DIR}/tests/resource_faults.sh)
set(RESOURCE_CHECKS endless-pipe endless-fifo dev-zero input-limit stdin-is-a-file write-errors
                    fake-mpi-world cost-flags scale-flag size-overflow in-place-hard-link long-output-name
                    validate-memory-per-process)
# An address-space limit cannot coexist with a sanitizer's shadow memory.
if(NOT RESHARDCTL_SANITIZE)
  list(APPEND RESOURCE_CHECKS out-of-memory validate-out-of-memory)
endif()
foreach(check ${RESOURCE_CHECKS})
  add_test(NAME resources.${check}
           COMMAND ${RESOURCE_FAULTS} $<TARGET_FILE:reshardctl> ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir ${check})
endforeach()
# A fake MPI world starts MPI where it is built in, and Open MPI keeps what
# MPI_Init allocates past MPI_Finalize (as tests/mpi_tests.cmake says).
if(RESHARDCTL_SANITIZE)
  set_tests_properties(resources.fake-mpi-world PROPERTIES
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1")
endif()

# diff --stat on equal programs still prints its summary line.
add_test(NAME cli.diff.same-file-stat
         COMMAND ${CMAKE_SOURCE_DIR}/tests/run_cli_case.sh 0 tests/golden/diff/same.stat.expected
                 $<TARGET_FILE:reshardctl> diff --stat samples/seed_mlp_before.ir samples/seed_mlp_before.ir
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
