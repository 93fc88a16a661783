# What `cmake --install build --prefix P` puts under P, and the .deb CPack
# builds from the same rules (`cpack -G DEB` in the build folder;
# scripts/package-deb.sh):
#   bin/reshardctl
#   share/man/man1/reshardctl.1                   the man page
#   share/bash-completion/completions/reshardctl  bash completion
#   share/zsh/site-functions/_reshardctl          zsh completion (zsh's own folder)
#   share/zsh/vendor-completions/_reshardctl      the same, where Debian's zsh looks
#   share/reshardctl/samples/, schema/            the sample dumps (--help's examples) and JSON schemas
#   share/doc/reshardctl/copyright                the licence (MIT, LICENSE), as Debian's policy names it
# The page and the scripts are written by the binary itself from the
# definition --help prints (src/tool/cli_docs.h), right after it is linked
# (src/tool/CMakeLists.txt), so building the reshardctl target is enough to
# install.
include(GNUInstallDirs)

set(RESHARDCTL_DOCS_DIR ${PROJECT_BINARY_DIR}/docs)  # written by src/tool/CMakeLists.txt
install(TARGETS reshardctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${RESHARDCTL_DOCS_DIR}/reshardctl.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${RESHARDCTL_DOCS_DIR}/reshardctl.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME reshardctl)
install(FILES ${RESHARDCTL_DOCS_DIR}/_reshardctl DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(FILES ${RESHARDCTL_DOCS_DIR}/_reshardctl DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples ${PROJECT_SOURCE_DIR}/schema
        DESTINATION ${CMAKE_INSTALL_DATADIR}/reshardctl)

# The copyright file in Debian's machine-readable format (DEP-5), the
# licence's text from LICENSE.
file(READ ${PROJECT_SOURCE_DIR}/LICENSE _reshardctl_license)
string(REGEX REPLACE "\n\n" "\n .\n" _reshardctl_license_body "${_reshardctl_license}")
string(REGEX REPLACE "\n([^ ])" "\n \\1" _reshardctl_license_body "${_reshardctl_license_body}")
file(WRITE ${PROJECT_BINARY_DIR}/copyright
     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
     "Upstream-Name: reshardctl\n\n"
     "Files: *\n"
     "Copyright: The reshardctl authors\n"
     "License: MIT\n ${_reshardctl_license_body}")
install(FILES ${PROJECT_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The package's version: `git describe` (cmake/package_version.cmake, which
# scripts/package-deb.sh runs again at package time).
include(${CMAKE_CURRENT_LIST_DIR}/package_version.cmake)
reshardctl_package_version(${PROJECT_SOURCE_DIR} ${PROJECT_VERSION} RESHARDCTL_PACKAGE_VERSION)

set(CPACK_PACKAGE_NAME reshardctl)
set(CPACK_PACKAGE_VENDOR "reshardctl developers")
set(CPACK_PACKAGE_CONTACT "reshardctl developers <reshardctl@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Insert, plan and run the reshards of Paddle PIR auto-parallel program dumps")
set(CPACK_PACKAGE_VERSION ${RESHARDCTL_PACKAGE_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_STRIP_FILES ON)
# Depends: from the libraries the binary links (dpkg-shlibdeps). CUDA and
# NCCL outside Debian's packages (/usr/local/cuda) are not dependencies the
# package can name: the machine that runs --backend nccl brings them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(RESHARDCTL_GPU_ENABLED)
  get_filename_component(_reshardctl_nccl_dir "${RESHARDCTL_NCCL_LIBRARY}" DIRECTORY)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${_reshardctl_nccl_dir} ${CUDAToolkit_LIBRARY_DIR})
endif()
include(CPack)
