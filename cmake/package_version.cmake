# The package's version from `git describe` of SOURCE_DIR: tag vX.Y.Z, N
# commits on, commit HASH: X.Y.Z+N.gHASH; on the tag itself X.Y.Z; without a
# tag the project's version and the commit (0.1.0+gHASH); a tree with
# uncommitted changes adds .dirty; without git, FALLBACK (the project's
# version). Included by cmake/install.cmake at configure time, and run by
# scripts/package-deb.sh at package time, so a package built after a new
# commit or tag carries it without a reconfigure:
#   cmake -DSOURCE_DIR=DIR -DFALLBACK=X.Y.Z -P cmake/package_version.cmake
function(reshardctl_package_version source_dir fallback out_var)
  execute_process(COMMAND git describe --tags --match "v[0-9]*" --always --dirty=.dirty --abbrev=12
                  WORKING_DIRECTORY ${source_dir}
                  OUTPUT_VARIABLE describe OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE status ERROR_QUIET)
  set(version ${fallback})
  if(status EQUAL 0 AND describe MATCHES "^v([0-9][^-]*)-([0-9]+)-(g.*)$")
    set(version "${CMAKE_MATCH_1}+${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
  elseif(status EQUAL 0 AND describe MATCHES "^v([0-9].*)$")
    set(version "${CMAKE_MATCH_1}")
  elseif(status EQUAL 0 AND describe MATCHES "^[0-9a-f]+")
    set(version "${fallback}+g${describe}")
  endif()
  set(${out_var} ${version} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  reshardctl_package_version(${SOURCE_DIR} ${FALLBACK} version)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo ${version})
endif()
