# CjaxExport.cmake — build-time export (docs/EXPORT.md).
#
#   cjax_export(<target> GENERATOR <executable target> NAME <name> [ARGS ...])
#
# Runs the generator at build time as `<generator> <dir> ARGS...`; it is a
# program of yours that calls cj_export_c(..., name, {.dir = argv[1]}) and
# so writes <dir>/<name>.c and <dir>/<name>.h. The .c joins <target>'s
# sources and <dir> its include path, so <target> (which need not link
# cjax at all) includes "<name>.h" and calls the exported function. The
# export reruns when the generator is rebuilt.
function(cjax_export target)
  cmake_parse_arguments(X "" "GENERATOR;NAME" "ARGS" ${ARGN})
  if(NOT X_GENERATOR OR NOT X_NAME)
    message(FATAL_ERROR "cjax_export(${target}): GENERATOR and NAME are required")
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/cjax_export/${X_NAME})
  add_custom_command(OUTPUT ${dir}/${X_NAME}.c ${dir}/${X_NAME}.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND $<TARGET_FILE:${X_GENERATOR}> ${dir} ${X_ARGS}
    DEPENDS ${X_GENERATOR}
    COMMENT "cj_export_c: ${X_NAME}.c and ${X_NAME}.h"
    VERBATIM)
  target_sources(${target} PRIVATE ${dir}/${X_NAME}.c)
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
