# Command-line checks for the CI-facing features: diff, apply --check,
# atomic output (JSON export and its schema are checked in
# src/report/json_export_test.cpp). Run from the repository root so the golden
# outputs can name files by relative path.
set(CLI_CASE ${CMAKE_SOURCE_DIR}/tests/run_cli_case.sh)
set(DIFF_DIR tests/golden/diff)
set(BEFORE samples/seed_mlp_before.ir)
set(AFTER samples/seed_mlp_after.ir)

function(add_cli_case name exit_code expected_stdout)
  add_test(NAME cli.${name}
           COMMAND ${CLI_CASE} ${exit_code} ${expected_stdout} $<TARGET_FILE:reshardctl> ${ARGN}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli.${name} PROPERTIES LABELS golden)  # rebased by scripts/regen-goldens.sh
endfunction()

# plan --explain: each reshard's alternatives (the README's table of peer plans).
add_cli_case(plan.explain 0 tests/golden/plan/peer_transitions.explain.expected
             plan --explain tests/golden/plan/peer_transitions.ir)
# A partial sum sent to the next stage, reduced on arrival: within a node, and every process a node of its own.
add_cli_case(plan.explain-reduce-on-arrival 0 tests/golden/plan/reduce_on_arrival.explain.expected
             plan --explain tests/golden/plan/reduce_on_arrival.ir)
add_cli_case(plan.explain-reduce-on-arrival-own-nodes 0 tests/golden/plan/reduce_on_arrival.own_nodes.expected
             plan --explain --node-size 1 tests/golden/plan/reduce_on_arrival.ir)
add_cli_case(plan.explain-excludes-json 2 - plan --explain --json tests/golden/plan/peer_transitions.ir)

# diff exits as diff(1): 0 equal, 1 different, 2 trouble.
add_cli_case(diff.seed 1 ${DIFF_DIR}/seed.expected diff ${BEFORE} ${AFTER})
add_cli_case(diff.seed-stat 1 ${DIFF_DIR}/seed.stat.expected diff --stat ${BEFORE} ${AFTER})
add_cli_case(diff.renumbered-is-equal 0 - diff ${AFTER} ${DIFF_DIR}/seed_after_renumbered.ir)
add_cli_case(diff.same-file 0 - diff ${BEFORE} ${BEFORE})
add_cli_case(diff.attrs 1 ${DIFF_DIR}/attrs.expected diff ${BEFORE} ${DIFF_DIR}/seed_before_attrs.ir)
add_cli_case(diff.ignore-attr 1 ${DIFF_DIR}/attrs-ignore-op_role.expected
             diff --ignore-attr op_role ${BEFORE} ${DIFF_DIR}/seed_before_attrs.ir)
add_cli_case(diff.ignore-attr-twice 0 -
             diff --ignore-attr op_role --ignore-attr stop_gradient ${BEFORE} ${DIFF_DIR}/seed_before_attrs.ir)
add_cli_case(diff.missing-file 2 - diff ${BEFORE} ${DIFF_DIR}/no-such-file.ir)
# The forms printers wrote: a spring-2024 cinn_op.fusion body, cf.stack_create's aliases.
add_cli_case(diff.fusion-spring-2024 1 ${DIFF_DIR}/fusion_spring_2024.expected
             diff tests/golden/pass/fusion_spring_2024.ir tests/golden/pass/fusion_spring_2024.expected.ir)
add_cli_case(diff.stack-aliases 1 ${DIFF_DIR}/stack_alias_dist.expected
             diff tests/golden/pass/stack_alias_dist.ir tests/golden/pass/stack_alias_dist.expected.ir)
add_cli_case(diff.bad-input 2 - diff ${BEFORE} tests/golden/errors/bad-truncated.ir)
add_cli_case(diff.one-argument 2 - diff ${BEFORE})

# apply --check exits as formatters' --check: 1 when the pass would change the program.
# Its findings and summary lines go to standard error, as every command's do; standard output stays empty.
add_cli_case(check.would-change 1 - apply --check ${BEFORE})
set_tests_properties(cli.check.would-change PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/tests/golden/check/seed_before.expected)
add_cli_case(check.unchanged 0 - apply --check ${AFTER})
add_cli_case(check.bad-input 1 - apply --check tests/golden/errors/bad-truncated.ir)
add_cli_case(in-place-from-stdin 2 - apply --in-place -)
add_cli_case(in-place-with-output 2 - apply --in-place ${BEFORE} -o out.ir)

add_test(NAME cli.atomic-write
         COMMAND ${CMAKE_SOURCE_DIR}/tests/atomic_write.sh $<TARGET_FILE:reshardctl>
                 ${CMAKE_SOURCE_DIR}/${BEFORE} ${CMAKE_SOURCE_DIR}/${AFTER}
                 ${CMAKE_SOURCE_DIR}/tests/golden/errors/bad-truncated.ir)

# print --emit=json: exact output for the seed, and bytes that are not UTF-8
# (a fuzzer finding: the export used to throw).
add_cli_case(json.seed 0 tests/golden/json/seed_mlp_before.expected.json print --emit=json ${BEFORE})
add_cli_case(json.invalid-utf8 0 tests/golden/json/invalid-utf8.expected.json
             print --emit=json tests/golden/json/invalid-utf8.ir)
add_cli_case(json.unknown-format 2 - print --emit=yaml ${BEFORE})

# The shell and CI features (tests/cli_features.sh): patches that apply,
# several inputs, -r, colour, -W names, --max-errors, GitHub annotations,
# usage errors.
foreach(case apply-diff-patches diff-unified-patches several-inputs recursive color warnings max-errors github usage
             logs-in-turn list-several mpi-start stats-every-format)
  add_test(NAME cli.${case}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/cli_features.sh $<TARGET_FILE:reshardctl> ${case}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endforeach()
set_tests_properties(cli.mpi-start PROPERTIES SKIP_RETURN_CODE 77)  # built with MPI: mpi_tests.cmake
add_cli_case(check.tensor-list 1 - apply --check tests/golden/pass/tensor_list.ir)
set_tests_properties(cli.check.tensor-list PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/tests/golden/check/tensor_list.expected)
add_cli_case(check.json 1 tests/golden/check/seed.expected.json apply --check --json ${BEFORE} ${AFTER})
add_cli_case(diff.unified 1 ${DIFF_DIR}/seed.unified.expected diff -u ${BEFORE} ${AFTER})

# Installing (cmake/install.cmake): the tree, the man page against --help, the
# bash (and zsh) completion, the .deb, the pre-commit hooks.
foreach(case tree man bash-completion bash-completion-tmux deb deb-version pre-commit-hooks)
  add_test(NAME install.${case}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/install_check.sh ${PROJECT_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${case})
endforeach()
set_tests_properties(install.deb PROPERTIES RUN_SERIAL ON)
set_tests_properties(install.bash-completion-tmux install.deb-version PROPERTIES SKIP_RETURN_CODE 77)  # cpack rebuilds and installs into its own folder
# Generation-A --fold onto a reshard's input whose type gives no process ids:
# the folded reshard's operand(0) entry gives them. (Not a pass golden: the
# new reshard's merged mesh is printed and its source's ids are not, so a
# second reading cannot plan it as the first did -- gen A's text loses them.)
add_cli_case(apply.fold-unknown-ids-to-merged-mesh 0 tests/golden/apply/fold_unknown_ids_to_merged_mesh.expected.ir
             apply --fold tests/golden/apply/fold_unknown_ids_to_merged_mesh.ir)

# Every command the README shows, run and compared with the output it shows
# (tests/readme_test.py; README "Development" has the conventions).
if(Python3_FOUND)
  add_test(NAME README.runs COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/readme_test.py ${PROJECT_BINARY_DIR})
  # Its mpirun example, as root in a container (Open MPI reads these; others
  # ignore them), and without LeakSanitizer, which takes what Open MPI keeps
  # past MPI_Finalize for leaks.
  set(readme_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
  if(RESHARDCTL_SANITIZE)
    list(APPEND readme_env "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1")
  endif()
  set_tests_properties(README.runs PROPERTIES ENVIRONMENT "${readme_env}")
  # The test can fail: a drifted output does, an elided one does not.
  add_test(NAME README.rejects-drift COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/readme_test.py
                                             ${PROJECT_BINARY_DIR} ${CMAKE_SOURCE_DIR}/tests/data/readme-drift.md)
  # scripts/real_model.py's programs, forward, backward and optimizer, validated at full size and shrunk.
  add_test(NAME real_model.validates COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/real_model_test.py
                                             ${PROJECT_BINARY_DIR})
  # print is a fixed point on mutants of the round-trip goldens and samples
  # (tests/print_fixed_point.py: seeded, 6 mutants a file, ~300 prints).
  add_test(NAME print.fixed-point COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/print_fixed_point.py
                                          $<TARGET_FILE:reshardctl> ${CMAKE_SOURCE_DIR})
  # README "In CI": its GitHub Actions workflow's steps and pre-commit configuration, run here.
  add_test(NAME README.ci-recipe COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/ci_recipe_test.py ${PROJECT_BINARY_DIR})
  set_tests_properties(README.rejects-drift PROPERTIES
                       PASS_REGULAR_EXPRESSION "FAIL readme-drift.md:8: [$] reshardctl diff --stat"
                       FAIL_REGULAR_EXPRESSION "FAIL readme-drift.md:[46]:")
endif()

# -j: the same bytes on any number of threads; a bad count from the flag or
# RESHARDCTL_JOBS is a usage error saying why.
add_cli_case(jobs.same-bytes 0 ${AFTER} print -j 3 ${AFTER})
add_cli_case(jobs.zero 2 - print -j 0 ${AFTER})
set_tests_properties(cli.jobs.zero PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/tests/golden/jobs/zero.stderr)
add_cli_case(jobs.bad-environment 2 - print ${AFTER})
set_tests_properties(cli.jobs.bad-environment PROPERTIES
                     ENVIRONMENT "RESHARDCTL_JOBS=many;EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/tests/golden/jobs/environment.stderr")
