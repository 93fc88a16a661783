# Hostile names through every destination of the output (support/escape.h).
foreach(case diff-header-quoted github-status-escaped dot-comment-safe terminal-escaped html-bidi-shown)
  add_test(NAME security.names.${case}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/security/hostile_names.sh $<TARGET_FILE:reshardctl> ${case}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endforeach()
