# Programs inside logs (README "Where dumps come from"): tests/golden/logs/
# holds logs as they arrive (glog prefixes, pass-instrumentation banners,
# module lines, labels) with the expected outputs. Run from the repository
# root, through tests/run_cli_case.sh (exit code + exact stdout; with
# EXPECTED_STDERR also the exact stderr).
set(LOGS tests/golden/logs)
set(TRAIN ${LOGS}/train.log)

function(add_log_case name exit_code expected_stdout)
  add_cli_case(log.${name} ${exit_code} ${expected_stdout} ${ARGN})
endfunction()

# `list`: every program a log holds, each parsed for its reshards, those apply
# would insert and their cost (--no-reshards: found only, nothing parsed).
add_log_case(list 0 ${LOGS}/train.list.txt list ${TRAIN})
add_log_case(list-no-reshards 0 ${LOGS}/train.list-no-reshards.txt list --no-reshards ${TRAIN})
add_log_case(list-json 0 ${LOGS}/train.list.json list --json ${TRAIN})
add_log_case(list-2023 0 ${LOGS}/cinn_2023.list.txt list ${LOGS}/cinn_2023.log)
add_log_case(list-2025 0 ${LOGS}/cinn_2025.list.txt list ${LOGS}/cinn_2025.log)
add_log_case(list-nothing 1 - list tests/golden/errors/bad-binary-garbage.ir)
# --reshards (the default, said explicitly) over two files.
add_log_case(list-reshards 0 ${LOGS}/train.list-reshards.txt list --reshards ${TRAIN} samples/seed_mlp_before.ir)
# A program the log ends inside is listed, not parsed ("-"): the log of a crashed run lists whole.
add_log_case(list-cut-short 0 ${LOGS}/cut_short.list.txt list tests/data/cut_short.log)
# A program that does not parse: "-", its error at the log's line, exit 1; --no-reshards lists it, exit 0.
add_log_case(list-bad-program 1 ${LOGS}/bad-syntax-in-log.list.txt list ${LOGS}/bad-syntax-in-log.log)
set_tests_properties(cli.log.list-bad-program PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/${LOGS}/bad-syntax-in-log.list.stderr)
add_log_case(list-bad-program-unparsed 0 ${LOGS}/bad-syntax-in-log.list-no-reshards.txt list --no-reshards ${LOGS}/bad-syntax-in-log.log)

# Several programs and no --program: exit 2, listing them.
add_log_case(several-programs 2 - print ${TRAIN})
set_tests_properties(cli.log.several-programs PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/${LOGS}/train.usage.stderr)
add_log_case(no-such-program 2 - print --program 4 ${TRAIN})
add_log_case(no-such-label 2 - verify --program no_such_pass ${TRAIN})

# One program of a log prints back byte for byte (its module line included),
# and every subcommand works on it exactly as on a plain dump: the pass turns
# program 1 (samples/seed_mlp_before.ir) into program 2 (seed_mlp_after.ir).
add_log_case(print-the-only-program 0 ${LOGS}/one_program.program.ir print ${LOGS}/one_program.log)
add_log_case(print-by-number 0 ${LOGS}/train.program1.ir print --program 1 ${TRAIN})
add_log_case(print-by-label 0 ${LOGS}/train.program2.ir print --program "after apply_partition" ${TRAIN})
add_log_case(apply 0 ${LOGS}/train.program2.ir apply --program 1 ${TRAIN})
add_log_case(apply-check 0 - apply --check --program 2 ${TRAIN})
add_log_case(verify 0 - verify --werror --program DistToDense ${TRAIN})
add_log_case(plan 0 ${LOGS}/train.plan.txt plan --apply --program 1 ${TRAIN})
add_log_case(diff-two-programs 1 ${LOGS}/train.diff.txt diff --program 1 --program 2 ${TRAIN})
add_log_case(diff-same-program 0 - diff --program 2 --program 2 ${TRAIN})
add_log_case(diff-one-program 2 - diff --program 1 ${TRAIN})
add_log_case(print-2023 0 ${LOGS}/cinn_2023.program2.ir print --program build_cinn_pass ${LOGS}/cinn_2023.log)
# A caption line ending in ':' labels the program under it (a real page's output, its README).
add_log_case(list-caption 0 ${LOGS}/codegen_main_program.list.txt list ${LOGS}/codegen_main_program.log)
add_log_case(print-by-caption 0 ${LOGS}/codegen_main_program.program.ir
             print --program "# main_program" ${LOGS}/codegen_main_program.log)
add_log_case(print-2025 0 ${LOGS}/cinn_2025.program2.ir print --program "after build_cinn" ${LOGS}/cinn_2025.log)
add_log_case(apply-2025 0 ${LOGS}/cinn_2025.program2.ir apply --program 2 ${LOGS}/cinn_2025.log)

# --in-place rewrites only that program's lines; `run` on a log's program.
add_test(NAME cli.log.in-place-and-run
         COMMAND ${CMAKE_SOURCE_DIR}/tests/log_in_place.sh $<TARGET_FILE:reshardctl>
                 ${CMAKE_SOURCE_DIR}/${TRAIN} 1 ${CMAKE_SOURCE_DIR}/${LOGS}/train.program2.ir)

# A prefix on every line of a program (`[rank0]: `, `332: `, a glog prefix)
# is not part of it: listed, read without it, written back with it.
add_log_case(list-prefixed 0 ${LOGS}/prefixed_rank.list.txt list ${LOGS}/prefixed_rank.log)
add_log_case(apply-prefixed 0 ${LOGS}/prefixed_rank.program.ir apply ${LOGS}/prefixed_rank.log)
# The module line and the pass banner carry the prefix too: the module line
# is the program's first line, the banner its label; -i keeps the prefixes.
add_log_case(list-prefixed-module 0 ${LOGS}/prefixed_module.list.txt list ${LOGS}/prefixed_module.log)
add_test(NAME cli.log.in-place-prefixed-module
         COMMAND ${CMAKE_SOURCE_DIR}/tests/log_in_place.sh $<TARGET_FILE:reshardctl>
                 ${CMAKE_SOURCE_DIR}/${LOGS}/prefixed_module.log 1 ${CMAKE_SOURCE_DIR}/${LOGS}/prefixed_module.program.ir)
add_test(NAME cli.log.in-place-prefixed
         COMMAND ${CMAKE_SOURCE_DIR}/tests/log_in_place.sh $<TARGET_FILE:reshardctl>
                 ${CMAKE_SOURCE_DIR}/${LOGS}/prefixed_rank.log 1 ${CMAKE_SOURCE_DIR}/${LOGS}/prefixed_rank.program.ir)

# Errors in a log name the log's own lines: bad-NAME.log → bad-NAME.stderr
# (the error.log row of tests/golden.cmake's table).

# --fragment (docs/format.md "Fragments"): op lines without braces, one op
# alone, elision lines, external inputs; printed back byte for byte, and a
# pass numbers what it inserts past the fragment's numbers.
set(FRAGMENTS tests/golden/fragments)
# Real fragments and their sources: tests/golden/fragments/README.md.
foreach(fragment ops_with_elisions if_op_alone dist_ops cinn_ast_ir_ops special_ops_combine special_ops_split
                 pir_save_load_while qa_resnet50_2023_ops pr66416_moment2_data camp_if_tab_indented)
  add_cli_case(fragment.print-${fragment} 0 ${FRAGMENTS}/${fragment}.ir print --fragment ${FRAGMENTS}/${fragment}.ir)
endforeach()
add_cli_case(fragment.apply 0 ${FRAGMENTS}/dist_ops.expected.ir apply --fragment ${FRAGMENTS}/dist_ops.ir)
add_cli_case(fragment.verify 0 - verify --fragment ${FRAGMENTS}/dist_ops.ir)
# Every reader takes --fragment (tool/input_files.h addFragmentFlag), and
# without it says what the text is.
add_cli_case(fragment.plan 0 ${FRAGMENTS}/dist_ops.plan.txt plan --apply --fragment ${FRAGMENTS}/dist_ops.ir)
add_cli_case(fragment.plan-without-flag 1 - plan --apply ${FRAGMENTS}/dist_ops.ir)
add_cli_case(fragment.diff 1 ${FRAGMENTS}/dist_ops.diff.txt
             diff --fragment ${FRAGMENTS}/dist_ops.ir ${FRAGMENTS}/dist_ops.expected.ir)
add_cli_case(fragment.diff-without-flag 2 - diff ${FRAGMENTS}/dist_ops.ir ${FRAGMENTS}/dist_ops.expected.ir)
add_cli_case(fragment.validate 0 ${FRAGMENTS}/dist_ops.validate.txt validate --apply --fragment ${FRAGMENTS}/dist_ops.ir)
add_cli_case(fragment.run 0 - run --apply --fragment ${FRAGMENTS}/dist_ops.ir -o /dev/null)
add_cli_case(fragment.run-without-flag 1 - run --apply ${FRAGMENTS}/dist_ops.ir -o /dev/null)
add_cli_case(fragment.lower 0 ${FRAGMENTS}/dist_ops.lower.txt lower --all-ranks --apply --fragment ${FRAGMENTS}/dist_ops.ir)
add_cli_case(fragment.lower-without-flag 1 - lower --all-ranks --apply ${FRAGMENTS}/dist_ops.ir)
# A real generation C op at its real size: rank 5 of the [4,2] mesh holds its 8000x2048 piece.
add_cli_case(fragment.lower-real 0 ${FRAGMENTS}/pr66416_moment2_data.lower.txt
             lower --rank 5 --fragment ${FRAGMENTS}/pr66416_moment2_data.ir)
add_cli_case(fragment.schedule 0 ${FRAGMENTS}/dist_ops.schedule.txt
             schedule --fragment ${FRAGMENTS}/dist_ops_rank0.ir ${FRAGMENTS}/dist_ops_rank1.ir)
add_cli_case(fragment.schedule-without-flag 1 - schedule ${FRAGMENTS}/dist_ops_rank0.ir ${FRAGMENTS}/dist_ops_rank1.ir)
add_cli_case(fragment.list 0 ${FRAGMENTS}/dist_ops.list.txt list --fragment --reshards ${FRAGMENTS}/dist_ops.ir)
add_cli_case(fragment.list-without-flag 1 - list ${FRAGMENTS}/dist_ops.ir)

# FILE#N names a log's program wherever an input is named (diff, --compare);
# under several inputs or -r, --program filters: files without a match, or
# without any program, are skipped with a note (tests/golden/logs/filter.*).
add_log_case(diff-file-hash 1 ${LOGS}/train.diff.txt diff "${TRAIN}#1" "${TRAIN}#2")
add_log_case(print-file-hash 0 ${LOGS}/train.program2.ir print "${TRAIN}#2")
add_log_case(compare-file-hash 0 - print --emit=html --compare "${TRAIN}#1" -o /dev/null "${TRAIN}#2")
add_log_case(file-hash-and-program 2 - print --program 1 "${TRAIN}#2")
add_log_case(file-hash-beyond 2 - print "${TRAIN}#9")
add_log_case(filter-after-pass 0 - verify -r --program after:apply_partition_pass ${LOGS}/train.log
             ${LOGS}/cinn_2025.log tests/golden/check_pass/worker.log)
set_tests_properties(cli.log.filter-after-pass PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/${LOGS}/filter.verify.stderr)
add_log_case(filter-nothing 0 - verify -r --program after:no_such_pass ${TRAIN})
set_tests_properties(cli.log.filter-nothing PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/${LOGS}/filter.nothing.stderr)

# check-pass: our pass on each program a log prints before apply_partition_pass
# against Paddle's after it; differences are errors at their lines in the log.
set(CHECK_PASS tests/golden/check_pass)
function(add_check_pass_case name exit_code)
  add_log_case(check-pass.${name} ${exit_code} - check-pass ${ARGN})
  set_tests_properties(cli.log.check-pass.${name} PROPERTIES
                       ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/${CHECK_PASS}/${name}.stderr)
endfunction()
add_check_pass_case(agrees 0 ${TRAIN})
add_check_pass_case(drift 1 ${CHECK_PASS}/drift.log)
add_check_pass_case(drift-github 1 --error-format=github ${CHECK_PASS}/drift.log)
add_check_pass_case(folder 1 -r ${LOGS} ${CHECK_PASS})
add_check_pass_case(no-pair 0 ${LOGS}/cinn_2025.log)
add_check_pass_case(quiet 1 -q ${CHECK_PASS}/drift.log ${TRAIN})
# --json: the pairs, each difference where the log shows it and diff --json's changes, on
# stdout (schema/check-pass.schema.json); standard error as without it.
add_log_case(check-pass.json 1 ${CHECK_PASS}/drift.json check-pass --json ${CHECK_PASS}/drift.log)
set_tests_properties(cli.log.check-pass.json PROPERTIES
                     ENVIRONMENT EXPECTED_STDERR=${CMAKE_SOURCE_DIR}/${CHECK_PASS}/drift.stderr)
