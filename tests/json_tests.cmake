# Every JSON reshardctl writes, validated against its schema (schema/*.json,
# the shared vocabulary in schema/vocabulary.schema.json) and SARIF against
# the published SARIF 2.1.0 schema (tests/data/README.md), by
# tests/validate_json.py with python3-jsonschema. The --invalid cases prove
# the validator rejects what it must.
set(VALIDATE ${CMAKE_SOURCE_DIR}/tests/validate_json.py)
set(SCHEMA ${CMAKE_SOURCE_DIR}/schema)
set(SARIF_SCHEMA ${CMAKE_SOURCE_DIR}/tests/data/sarif-schema-2.1.0.json)

function(add_json_case name schema)
  add_test(NAME json.${name} COMMAND ${Python3_EXECUTABLE} ${VALIDATE} ${schema} ${ARGN})
endfunction()

add_json_case(rejects.program ${SCHEMA}/program.schema.json --invalid ${CMAKE_SOURCE_DIR}/tests/data/invalid-program.json)
add_json_case(rejects.verify ${SCHEMA}/verify.schema.json --invalid ${CMAKE_SOURCE_DIR}/tests/data/invalid-verify.json)
add_json_case(rejects.check-pass ${SCHEMA}/check-pass.schema.json --invalid ${CMAKE_SOURCE_DIR}/tests/data/invalid-check-pass.json)
add_json_case(rejects.sarif ${SARIF_SCHEMA} --invalid ${CMAKE_SOURCE_DIR}/tests/data/invalid-sarif.json)

set(TOOL $<TARGET_FILE:reshardctl>)
foreach(input samples/seed_mlp_before.ir samples/tp_mlp_2x2_before.ir tests/golden/pass/if_blocks.ir
              tests/golden/pass/tensor_list.ir tests/golden/json/invalid-utf8.ir)
  get_filename_component(name ${input} NAME_WE)
  add_json_case(program.${name} ${SCHEMA}/program.schema.json -- ${TOOL} print --emit=json ${input})
endforeach()
add_json_case(diagnostics ${SCHEMA}/diagnostic.schema.json --stderr --lines --exit 2 --
              ${TOOL} verify --error-format=json tests/golden/verify/warn-gen-c.ir
              tests/golden/errors/bad-undefined-value.ir tests/golden/errors/bad-duplicate-definition.ir no-such-file.ir)
add_json_case(sarif.verify ${SARIF_SCHEMA} --stderr --sarif --exit 2 --
              ${TOOL} verify --error-format=sarif -Werror=extra-entry tests/golden/verify/warn-gen-c.ir
              tests/golden/verify/warn-shape-only-mesh.ir tests/golden/errors/bad-duplicate-definition.ir
              tests/golden/errors/bad-truncated.ir no-such-file.ir)
add_json_case(sarif.check ${SARIF_SCHEMA} --stderr --sarif --exit 1 --
              ${TOOL} apply --check --error-format=sarif samples/seed_mlp_before.ir samples/seed_mlp_after.ir)
add_json_case(verify ${SCHEMA}/verify.schema.json --exit 1 --
              ${TOOL} verify --json -r samples tests/golden/verify/warn-gen-c.ir tests/golden/errors/bad-unknown-token.ir
              tests/golden/logs/train.log)
add_json_case(check ${SCHEMA}/check.schema.json --exit 1 --
              ${TOOL} apply --check --json samples/seed_mlp_before.ir samples/seed_mlp_after.ir tests/golden/pass/tensor_list.ir
              tests/golden/logs/train.log)
add_json_case(check-pass ${SCHEMA}/check-pass.schema.json --exit 1 --
              ${TOOL} check-pass --json tests/golden/logs/train.log tests/golden/check_pass/drift.log
              tests/golden/logs/cinn_2025.log)
# With --error-format=sarif beside --json: the document on stdout, one SARIF log on stderr.
add_json_case(sarif.check-pass ${SARIF_SCHEMA} --stderr --sarif --exit 1 --
              ${TOOL} check-pass --json --error-format=sarif tests/golden/check_pass/drift.log)
add_json_case(diff ${SCHEMA}/diff.schema.json --exit 1 -- ${TOOL} diff --json samples/seed_mlp_before.ir samples/seed_mlp_after.ir)
add_json_case(diff-equal ${SCHEMA}/diff.schema.json --exit 0 -- ${TOOL} diff --json samples/seed_mlp_after.ir samples/seed_mlp_after.ir)
add_json_case(plan ${SCHEMA}/plan.schema.json -- ${TOOL} plan --json samples/seed_mlp_after.ir)
add_json_case(plan-apply ${SCHEMA}/plan.schema.json -- ${TOOL} plan --json --apply tests/golden/plan/pipeline.ir)
add_json_case(run ${SCHEMA}/run.schema.json -- ${TOOL} run --json --apply samples/tp_mlp_2x2_before.ir)
add_json_case(run-shrink ${SCHEMA}/run.schema.json -- ${TOOL} run --json --apply --shrink=2 samples/tp_mlp_2x2_before.ir)
add_json_case(run-failing ${SCHEMA}/run.schema.json --exit 1 --
              ${TOOL} run --json samples/seed_mlp_after.ir --inject-fault 1:0:drop)
add_json_case(list ${SCHEMA}/list.schema.json --exit 1 --
              ${TOOL} list --json tests/golden/logs/train.log tests/golden/logs/cinn_2025.log samples/seed_mlp_after.ir
              tests/golden/errors/bad-binary-garbage.ir)
add_json_case(list-reshards ${SCHEMA}/list.schema.json --
              ${TOOL} list --json --reshards tests/golden/logs/train.log samples/seed_mlp_before.ir tests/data/cut_short.log)
add_json_case(list-no-reshards ${SCHEMA}/list.schema.json --
              ${TOOL} list --json --no-reshards tests/golden/logs/train.log samples/seed_mlp_before.ir)
add_json_case(validate ${SCHEMA}/validate.schema.json --exit 1 --
              ${TOOL} validate --json samples/seed_mlp_before.ir samples/seed_mlp_after.ir
              tests/golden/validate/not_simulated.ir tests/golden/errors/bad-truncated.ir)
add_json_case(validate-log ${SCHEMA}/validate.schema.json --exit 1 --
              ${TOOL} validate --json --all -r tests/golden/logs/train.log)
# Every code a diagnostic carries is one of the log's rules: validate's
# divergence, list's empty file.
add_json_case(sarif.validate ${SARIF_SCHEMA} --stderr --sarif --exit 1 --
              ${TOOL} validate --error-format=sarif samples/seed_mlp_before.ir samples/seed_mlp_after.ir)
add_json_case(sarif.list ${SARIF_SCHEMA} --stderr --sarif --exit 1 --
              ${TOOL} list --error-format=sarif tests/golden/logs/train.log tests/golden/errors/bad-binary-garbage.ir)
add_json_case(schedule ${SCHEMA}/schedule.schema.json --exit 1 --
              ${TOOL} schedule --json tests/golden/schedule/send_send_deadlock.r0.ir
              tests/golden/schedule/send_send_deadlock.r1.ir)
add_json_case(schedule-clean ${SCHEMA}/schedule.schema.json --
              ${TOOL} schedule --json tests/golden/schedule/clean_dist_attr_groups.r0.ir
              tests/golden/schedule/clean_dist_attr_groups.r1.ir tests/golden/schedule/clean_dist_attr_groups.r2.ir
              tests/golden/schedule/clean_dist_attr_groups.r3.ir)
add_json_case(sarif.schedule ${SARIF_SCHEMA} --stderr --sarif --exit 1 --
              ${TOOL} schedule --error-format=sarif tests/golden/schedule/control_flow.r0.ir
              tests/golden/schedule/extra_collective.r0.ir)
