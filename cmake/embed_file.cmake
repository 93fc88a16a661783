# Turns a file into C++ source at build time, with nothing beyond CMake:
#   cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=kName -DHEADER=stage/x.h -P embed_file.cmake
# writes OUTPUT defining `const std::string_view SYMBOL` (declared extern in
# HEADER) over the bytes of INPUT, exactly as they are.
# reshardctl_embed(TARGET_VAR INPUT SYMBOL HEADER) adds the build rule and
# appends the generated file to the list TARGET_VAR.

if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${INPUT}" hex HEX)
  string(LENGTH "${hex}" digits)
  math(EXPR size "${digits} / 2")
  string(REGEX REPLACE "(................................)" "\\1\n" hex "${hex}")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  get_filename_component(name "${INPUT}" NAME)
  file(WRITE "${OUTPUT}"
       "// Generated from ${name} by cmake/embed_file.cmake: edit ${name}, not this.\n"
       "#include \"${HEADER}\"\n\nnamespace reshardctl {\n\nnamespace {\nconstexpr char kBytes[] = {\n"
       "${bytes}\n0};\n}  // namespace\n\n"
       "const std::string_view ${SYMBOL}(kBytes, ${size});\n\n}  // namespace reshardctl\n")
  return()
endif()

set(RESHARDCTL_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

function(reshardctl_embed list_var input symbol header)
  get_filename_component(name "${input}" NAME)
  string(MAKE_C_IDENTIFIER "${name}" id)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/embedded_${id}.cpp)
  add_custom_command(OUTPUT ${output}
                     COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol}
                             -DHEADER=${header} -P ${RESHARDCTL_EMBED_SCRIPT}
                     DEPENDS ${input} ${RESHARDCTL_EMBED_SCRIPT}
                     COMMENT "Embedding ${name}" VERBATIM)
  set(${list_var} ${${list_var}} ${output} PARENT_SCOPE)
endfunction()
