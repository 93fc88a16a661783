# print's views (src/view/): golden outputs listed in tests/golden/views/cases.txt,
# bad usage, and checks with Graphviz and a headless browser that skip (exit 77)
# where those are not installed.
set(VIEW_GOLDEN_DIR tests/golden/views)
file(STRINGS ${CMAKE_SOURCE_DIR}/${VIEW_GOLDEN_DIR}/cases.txt VIEW_CASES REGEX "^[^#]")
set(view_case_number 0)
foreach(line IN LISTS VIEW_CASES)
  string(REGEX REPLACE "[ \t]+" ";" words "${line}")
  list(POP_FRONT words expected)
  math(EXPR view_case_number "${view_case_number} + 1")
  add_cli_case(view.${view_case_number}.${expected} 0 ${VIEW_GOLDEN_DIR}/${expected} ${words})
endforeach()

# Bad usage exits 2 before reading; bad input 1.
add_cli_case(view.brief-and-json 2 - print --brief --emit=json ${AFTER})
add_cli_case(view.focus-without-view 2 - print --focus %9 ${AFTER})
add_cli_case(view.compare-without-html 2 - print --brief --compare ${BEFORE} ${AFTER})
add_cli_case(view.unknown-focus 2 - print --brief --focus %99 ${AFTER})
add_cli_case(view.negative-depth 2 - print --brief --focus %9 --depth -1 ${AFTER})
add_cli_case(view.bad-input 1 - print --brief tests/golden/errors/bad-truncated.ir)
add_cli_case(view.compare-missing 2 - print --emit=html --compare ${DIFF_DIR}/no-such-file.ir ${AFTER})
add_cli_case(view.compare-bad-input 1 - print --emit=html --compare tests/golden/errors/bad-truncated.ir ${AFTER})

set(VIEWS_TEST ${CMAKE_SOURCE_DIR}/tests/views_test.sh)
file(GLOB VIEW_DOT_INPUTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/golden/pass/*.expected.ir
     ${CMAKE_SOURCE_DIR}/tests/golden/roundtrip/*.ir ${CMAKE_SOURCE_DIR}/samples/*.ir
     ${CMAKE_SOURCE_DIR}/${VIEW_GOLDEN_DIR}/*.ir)
add_test(NAME view.graphviz COMMAND ${VIEWS_TEST} dot $<TARGET_FILE:reshardctl> ${VIEW_DOT_INPUTS})
add_test(NAME view.browser COMMAND ${VIEWS_TEST} browser $<TARGET_FILE:reshardctl>
                                   ${CMAKE_SOURCE_DIR}/${BEFORE} ${CMAKE_SOURCE_DIR}/${AFTER})
set_tests_properties(view.graphviz view.browser PROPERTIES SKIP_RETURN_CODE 77)
