# Golden-file tests: one ctest per file under tests/golden/ (see tests/run_golden.sh).
set(GOLDEN_DIR ${CMAKE_SOURCE_DIR}/tests/golden)
set(GOLDEN_RUN ${CMAKE_SOURCE_DIR}/tests/run_golden.sh)

# The bundled samples: the seed pair and both round trips.
add_test(NAME golden.pass.seed_mlp
         COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> pass
                 ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir ${CMAKE_SOURCE_DIR}/samples/seed_mlp_after.ir)
file(GLOB SAMPLE_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/samples/*.ir)
foreach(file ${SAMPLE_FILES})
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME golden.roundtrip.sample.${name}
           COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> roundtrip ${file})
endforeach()

# Before/after pairs: NAME.ir → NAME.expected.ir
file(GLOB PASS_INPUTS CONFIGURE_DEPENDS ${GOLDEN_DIR}/pass/*.ir)
list(FILTER PASS_INPUTS EXCLUDE REGEX "\\.expected\\.ir$")
foreach(file ${PASS_INPUTS})
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME golden.pass.${name}
           COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> pass ${file} ${GOLDEN_DIR}/pass/${name}.expected.ir)
  add_test(NAME golden.roundtrip.pass.${name}
           COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> roundtrip ${file})
endforeach()

file(GLOB ROUNDTRIP_INPUTS CONFIGURE_DEPENDS ${GOLDEN_DIR}/roundtrip/*.ir)
foreach(file ${ROUNDTRIP_INPUTS})
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME golden.roundtrip.${name}
           COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> roundtrip ${file})
endforeach()

# Bad inputs: bad-NAME.ir → bad-NAME.stderr
file(GLOB ERROR_INPUTS CONFIGURE_DEPENDS ${GOLDEN_DIR}/errors/*.ir)
foreach(file ${ERROR_INPUTS})
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME golden.error.${name}
           COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> error ${file} ${GOLDEN_DIR}/errors/${name}.stderr)
endforeach()

# Warnings: NAME.ir → NAME.stderr from `verify` (and --werror / --quiet)
file(GLOB VERIFY_INPUTS CONFIGURE_DEPENDS ${GOLDEN_DIR}/verify/*.ir)
foreach(file ${VERIFY_INPUTS})
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME golden.verify.${name}
           COMMAND ${GOLDEN_RUN} $<TARGET_FILE:reshardctl> verify ${file} ${GOLDEN_DIR}/verify/${name}.stderr)
endforeach()

# Plans (tests/run_plan_golden.sh), all in tests/golden/plan: every bundled
# sample samples/NAME_before.ir → sample_NAME.plan.{txt,json}; every pass input
# tests/golden/pass/NAME.ir → pass_NAME.plan.{txt,json}; plan/NAME.ir →
# NAME.plan.{txt,json}; plan/bad-NAME.ir → bad-NAME.stderr.
set(PLAN_GOLDEN_DIR ${GOLDEN_DIR}/plan)
set(PLAN_GOLDEN_RUN ${CMAKE_SOURCE_DIR}/tests/run_plan_golden.sh)
function(add_plan_golden test_name input expected_base)
  add_test(NAME golden.plan.${test_name}
           COMMAND ${PLAN_GOLDEN_RUN} $<TARGET_FILE:reshardctl> plan ${input}
                   ${PLAN_GOLDEN_DIR}/${expected_base}.plan.txt ${PLAN_GOLDEN_DIR}/${expected_base}.plan.json)
endfunction()
file(GLOB PLAN_SAMPLES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/samples/*_before.ir)
foreach(file ${PLAN_SAMPLES})
  get_filename_component(name ${file} NAME_WE)
  string(REGEX REPLACE "_before$" "" name ${name})
  add_plan_golden(sample.${name} ${file} sample_${name})
endforeach()
foreach(file ${PASS_INPUTS})
  get_filename_component(name ${file} NAME_WE)
  add_plan_golden(pass.${name} ${file} pass_${name})
endforeach()
file(GLOB PLAN_INPUTS CONFIGURE_DEPENDS ${PLAN_GOLDEN_DIR}/*.ir)
foreach(file ${PLAN_INPUTS})
  get_filename_component(name ${file} NAME_WE)
  if(name MATCHES "^bad-")
    add_test(NAME golden.plan.${name}
             COMMAND ${PLAN_GOLDEN_RUN} $<TARGET_FILE:reshardctl> error ${file} ${PLAN_GOLDEN_DIR}/${name}.stderr)
  else()
    add_plan_golden(${name} ${file} ${name})
  endif()
endforeach()

# `run`: every sample and golden input proves every reshard; injected faults fail exactly their reshard;
# the nccl backend on a machine without a GPU exits 2 with a clear message.
set(RUN_TEST ${CMAKE_SOURCE_DIR}/tests/run_command_test.sh)
add_test(NAME run.samples COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> samples ${CMAKE_SOURCE_DIR}/samples)
add_test(NAME run.goldens COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> goldens ${GOLDEN_DIR})
add_test(NAME run.fault COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> fault ${CMAKE_SOURCE_DIR}/samples/tp_mlp_2x2_before.ir)
add_test(NAME run.nccl-without-gpu COMMAND ${RUN_TEST} $<TARGET_FILE:reshardctl> nccl ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir)

# `validate` (tests/run_validate_golden.sh): validate/NAME.ir (flags in
# NAME.flags) or validate/NAME.case ("INPUT FLAGS...") → NAME.expected, the
# exit code with standard output and error. wrong_*.ir must also pass verify
# and apply.
set(VALIDATE_GOLDEN_DIR ${GOLDEN_DIR}/validate)
file(GLOB VALIDATE_CASES CONFIGURE_DEPENDS ${VALIDATE_GOLDEN_DIR}/*.ir ${VALIDATE_GOLDEN_DIR}/*.case)
foreach(file ${VALIDATE_CASES})
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME golden.validate.${name}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/run_validate_golden.sh $<TARGET_FILE:reshardctl> ${file}
                   ${VALIDATE_GOLDEN_DIR}/${name}.expected)
endforeach()
add_test(NAME validate.nccl-without-gpu
         COMMAND ${CMAKE_SOURCE_DIR}/tests/run_validate_golden.sh $<TARGET_FILE:reshardctl> nccl
                 ${CMAKE_SOURCE_DIR}/samples/seed_mlp_before.ir)
