# One CMake library per stage of src/ (see src/README.md), and the build-time
# check that dependencies point only downwards.
#
#   reshardctl_stage(NAME [DEPENDS lower stages...] [LIBS external targets...]
#                    [HEADERS include roots...] [SOURCES extra files...]
#                    [EXCLUDE file names...])
#
# builds reshardctl_NAME, a static library of the folder's *.cpp (tests
# excluded) linked to the stages it DEPENDS on. Two checks keep the direction:
# - the link check: the same objects linked into a shared library with
#   --no-undefined against only those stages, so a call into a higher stage
#   fails the build ("undefined reference");
# - the include check (ctest layering.includes, tests/check_layering.py):
#   every #include "STAGE/..." in a non-test file names the file's own stage
#   or one it may use (DEPENDS, transitively, or HEADERS such as grammar/),
#   which also catches a breach through a header-only part.
# Tests (*_test.cpp) may include any stage: they link everything.

option(RESHARDCTL_LINK_CHECK "Link each stage alone to prove it needs no higher stage" ON)
# Sanitizer runtimes live in the executable: a shared library cannot resolve them alone.
if(RESHARDCTL_SANITIZE OR RESHARDCTL_FUZZ)
  set(RESHARDCTL_LINK_CHECK OFF)
endif()
# Static stages linked into a shared check library must be position independent.
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

set(RESHARDCTL_STAGE_FILE ${CMAKE_BINARY_DIR}/stages.txt)
file(WRITE ${RESHARDCTL_STAGE_FILE} "# stage: the include roots its non-test files may use (written by cmake/stages.cmake)\n")

function(reshardctl_stage name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPENDS;LIBS;HEADERS;SOURCES;EXCLUDE")
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER sources EXCLUDE REGEX "_test\\.cpp$")
  list(FILTER sources EXCLUDE REGEX "/main\\.cpp$")
  foreach(excluded IN LISTS arg_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "/${excluded}$")
  endforeach()
  set(target reshardctl_${name})
  add_library(${target} STATIC ${sources} ${arg_SOURCES})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR})
  set(allowed ${arg_HEADERS})
  foreach(dep IN LISTS arg_DEPENDS)
    if(NOT TARGET reshardctl_${dep})
      message(FATAL_ERROR "stage ${name} depends on ${dep}, which is not defined before it")
    endif()
    target_link_libraries(${target} PUBLIC reshardctl_${dep})
    get_property(dep_allowed GLOBAL PROPERTY RESHARDCTL_STAGE_ALLOWED_${dep})
    list(APPEND allowed ${dep} ${dep_allowed})
  endforeach()
  target_link_libraries(${target} PUBLIC ${arg_LIBS})
  list(REMOVE_DUPLICATES allowed)
  set_property(GLOBAL PROPERTY RESHARDCTL_STAGE_ALLOWED_${name} ${allowed})
  string(REPLACE ";" " " allowed_text "${allowed}")
  file(APPEND ${RESHARDCTL_STAGE_FILE} "${name}: ${allowed_text}\n")

  if(RESHARDCTL_LINK_CHECK)
    # The stage's own objects plus the libraries it declares: the archive of
    # the stage itself adds nothing (its objects are already in), so any
    # symbol left undefined belongs to a stage it did not declare.
    add_library(${target}_linkcheck SHARED $<TARGET_OBJECTS:${target}>)
    target_link_libraries(${target}_linkcheck PRIVATE ${target})
    target_link_options(${target}_linkcheck PRIVATE LINKER:--no-undefined)
  endif()
endfunction()
