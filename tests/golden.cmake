# Golden-file tests: every kind is one row of the table below, and every test
# runs tests/run_golden.sh, which holds each mode's command line (and, with
# --rebase or GOLDEN_REBASE=1, writes the output over the expected files:
# scripts/regen-goldens.sh). Tests of a table row, and tests/ci_tests.cmake's
# command-line cases, carry the label `golden` (`ctest -L golden`).
set(GOLDEN_DIR ${CMAKE_SOURCE_DIR}/tests/golden)
set(GOLDEN_RUN ${CMAKE_SOURCE_DIR}/tests/run_golden.sh)

# golden_kind(TEST MODE INPUTS [EXPECTED...] [EXCLUDE REGEX]): one test
# golden.TEST per file that INPUTS (a glob from the repository root) matches,
# running `run_golden.sh TOOL MODE INPUT EXPECTED...`. In TEST and EXPECTED,
# {} stands for what the glob's `*` matched. Files named *.expected.* are
# outputs, never inputs; EXCLUDE drops inputs whose name matches REGEX.
function(golden_kind test mode inputs)
  cmake_parse_arguments(PARSE_ARGV 3 kind "" "EXCLUDE" "")
  file(GLOB files RELATIVE ${CMAKE_SOURCE_DIR} CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${inputs})
  list(FILTER files EXCLUDE REGEX "\\.expected\\.")
  string(REPLACE "." "\\." pattern "${inputs}")
  string(REPLACE "*" "(.*)" pattern "${pattern}")
  foreach(file ${files})
    get_filename_component(file_name ${file} NAME)
    if(kind_EXCLUDE AND file_name MATCHES "${kind_EXCLUDE}")
      continue()
    endif()
    set(name "")
    if(inputs MATCHES "\\*")
      string(REGEX REPLACE "^${pattern}$" "\\1" name "${file}")
    endif()
    string(REPLACE "{}" "${name}" test_name "${test}")
    set(expected "")
    foreach(expected_file ${kind_UNPARSED_ARGUMENTS})
      string(REPLACE "{}" "${name}" expected_file "${expected_file}")
      list(APPEND expected ${CMAKE_SOURCE_DIR}/${expected_file})
    endforeach()
    add_test(NAME golden.${test_name}
             COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> ${mode} ${CMAKE_SOURCE_DIR}/${file} ${expected})
    set_tests_properties(golden.${test_name} PROPERTIES LABELS golden)
  endforeach()
endfunction()

# The kinds. Modes (tests/run_golden.sh): pass: apply == EXPECTED, and apply
# of it changes nothing; roundtrip: print == the input; error: print fails,
# stderr == EXPECTED; verify: warnings on stderr == EXPECTED; plan: plan
# --apply == the table, --json == the JSON; plan-error: plan fails, stderr ==
# EXPECTED; validate, lower, schedule: exit code, stdout and stderr == EXPECTED.
#           test                  mode        inputs                        expected
golden_kind(pass.seed_mlp         pass        samples/seed_mlp_before.ir    samples/seed_mlp_after.ir)
golden_kind(pass.{}               pass        tests/golden/pass/*.ir        tests/golden/pass/{}.expected.ir)
golden_kind(roundtrip.sample.{}   roundtrip   samples/*.ir)
golden_kind(roundtrip.pass.{}     roundtrip   tests/golden/pass/*.ir)
golden_kind(roundtrip.{}          roundtrip   tests/golden/roundtrip/*.ir)
golden_kind(roundtrip.real.{}     roundtrip   tests/golden/real/*.ir)  # real dumps, sources in its README
# Real distributed dumps (real/dist_*.ir) are planned and lowered for every rank as well.
golden_kind(plan.real.{}          plan        tests/golden/real/dist_*.ir
            tests/golden/real/dist_{}.plan.txt tests/golden/real/dist_{}.plan.json)
golden_kind(lower.real.{}         lower       tests/golden/real/dist_*.ir   tests/golden/real/dist_{}.lower.expected)
golden_kind(error.{}              error       tests/golden/errors/*.ir      tests/golden/errors/{}.stderr)
golden_kind(error.log.bad-{}      error       tests/golden/logs/bad-*.log   tests/golden/logs/bad-{}.stderr)
golden_kind(verify.{}             verify      tests/golden/verify/*.ir      tests/golden/verify/{}.stderr)
golden_kind(plan.sample.{}        plan        samples/*_before.ir
            tests/golden/plan/sample_{}.plan.txt tests/golden/plan/sample_{}.plan.json)
golden_kind(plan.pass.{}          plan        tests/golden/pass/*.ir
            tests/golden/plan/pass_{}.plan.txt tests/golden/plan/pass_{}.plan.json)
golden_kind(plan.{}               plan        tests/golden/plan/*.ir
            tests/golden/plan/{}.plan.txt tests/golden/plan/{}.plan.json EXCLUDE "^bad-")
golden_kind(plan.bad-{}           plan-error  tests/golden/plan/bad-*.ir    tests/golden/plan/bad-{}.stderr)
# validate: NAME.ir (flags in NAME.flags) or NAME.case ("INPUT FLAGS...");
# wrong_*.ir must also pass verify and apply.
golden_kind(validate.{}           validate    tests/golden/validate/*.ir    tests/golden/validate/{}.expected)
golden_kind(validate.{}           validate    tests/golden/validate/*.case  tests/golden/validate/{}.expected)
# run: NAME.case ("INPUT FLAGS..."): exit code, stdout and stderr (a reshard too large to run is refused).
golden_kind(run.{}                run         tests/golden/run/*.case       tests/golden/run/{}.expected)
# lower: NAME.ir (flags in NAME.flags, default --apply --all-ranks): exit code, the programs and stderr.
golden_kind(lower.{}              lower       tests/golden/lower/*.ir       tests/golden/lower/{}.expected)
golden_kind(lower.sample.{}       lower       samples/*.ir                  tests/golden/lower/sample_{}.expected)
# schedule: NAME.case ("FILES... FLAGS"), each rank's program beside it.
golden_kind(schedule.{}           schedule    tests/golden/schedule/*.case  tests/golden/schedule/{}.expected)
# schedule --apply: every sample and golden dist program lowered for every rank is clean (or its known hang found).
add_test(NAME schedule.lowered-dist-programs
         COMMAND ${CMAKE_SOURCE_DIR}/tests/schedule_lowered.sh $<TARGET_FILE:reshardctl> ${CMAKE_SOURCE_DIR}/samples ${GOLDEN_DIR})

# `run`: every sample and golden input proves every reshard; injected faults fail exactly their reshard;
# the nccl backend on a machine without a GPU exits 2 with a clear message.
set(RUN_TEST ${CMAKE_SOURCE_DIR}/tests/run_command_test.sh)
add_test(NAME run.samples COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> samples ${CMAKE_SOURCE_DIR}/samples)
add_test(NAME run.goldens COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> goldens ${GOLDEN_DIR})
add_test(NAME run.fault COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> fault ${CMAKE_SOURCE_DIR}/samples/tp_mlp_2x2_before.ir)
add_test(NAME run.nccl-without-gpu COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> nccl ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir)
# validate --lowered: every rank's lowered program against the serial one (samples, the lower goldens, the
# Llama/GPT blocks, the generator's programs); a deliberately wrong lowering is caught.
set(LOWERED_TEST ${CMAKE_SOURCE_DIR}/tests/validate_lowered_test.sh)
add_test(NAME validate.lowered.samples COMMAND ${LOWERED_TEST} $<TARGET_FILE:reshardctl> samples ${CMAKE_SOURCE_DIR}/samples)
add_test(NAME validate.lowered.goldens COMMAND ${LOWERED_TEST} $<TARGET_FILE:reshardctl> goldens ${GOLDEN_DIR})
add_test(NAME validate.lowered.plan-goldens COMMAND ${LOWERED_TEST} $<TARGET_FILE:reshardctl> plan-goldens ${GOLDEN_DIR})
add_test(NAME validate.lowered.fault-slice-bound
         COMMAND ${LOWERED_TEST} $<TARGET_FILE:reshardctl> fault ${GOLDEN_DIR}/lower/nd_mesh_r_to_s.ir slice-bound)
add_test(NAME validate.lowered.fault-reduce-type
         COMMAND ${LOWERED_TEST} $<TARGET_FILE:reshardctl> fault ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir reduce-type)
add_test(NAME validate.lowered.differential
         COMMAND ${LOWERED_TEST} $<TARGET_FILE:reshardctl> differential $<TARGET_FILE:differential> 1 60)
add_test(NAME validate.nccl-without-gpu
         COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> validate-nccl ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir)
