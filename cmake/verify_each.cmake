# mlir-opt -verify-each for the test suite: every test in the calling
# directory runs with the graph checker and the verifier after each pass
# (src/passes/pass_runner.h). Include it after the directory's last add_test.
get_property(reshardctl_dir_tests DIRECTORY PROPERTY TESTS)
if(reshardctl_dir_tests)
  set_property(TEST ${reshardctl_dir_tests} APPEND PROPERTY ENVIRONMENT RESHARDCTL_VERIFY_EACH=1)
endif()
