# Hostile names through every destination of the output (support/escape.h).
foreach(case diff-header-quoted github-status-escaped dot-comment-safe terminal-escaped html-bidi-shown
             plan-json-non-utf8 message-name-one-line usage-error-escaped github-property-escaped validate-report-escaped schedule-listing-escaped
             dot-long-label-cut)
  add_test(NAME security.names.${case}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/security/hostile_names.sh $<TARGET_FILE:reshardctl> ${case}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endforeach()

# Output paths opened as the shell's `>` would, and -r reading only its tree
# (SECURITY.md); a case that cannot be set up here (no root, no setpriv) exits 77: skipped.
foreach(case output-planted-link-root output-planted-link-user output-read-only-refused output-read-only-folder
             walk-links-stay-inside walk-unreadable-folder walk-deep-tree walk-one-file-status validate-budget validate-nested-loops validate-many-ranks-memory sarif-code-point-columns
             dangling-comma-message
             diff-log-hunks-numbered diff-pairs-at-every-size diff-dense-changes usage-error-formats
             log-many-programs-listed many-warnings-one-line
             schedule-many-programs list-many-programs-memory)
  add_test(NAME security.files.${case}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/security/hostile_files.sh $<TARGET_FILE:reshardctl> ${case}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(security.files.${case} PROPERTIES SKIP_RETURN_CODE 77)
  if(RESHARDCTL_SANITIZE)
    set_tests_properties(security.files.${case} PROPERTIES ENVIRONMENT SANITIZED=1)
  endif()
endforeach()

# Every printer fed seeded hostile names, labels and op names keeps its format's invariants.
add_test(NAME security.printers.fuzz
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/security/printer_fuzz.py $<TARGET_FILE:reshardctl> 24)
