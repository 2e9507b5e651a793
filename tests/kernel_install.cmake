# ctest kernel_install: fenns installed to a scratch prefix, then a user's
# project (tests/kernel_consumer) builds a kernel with the installed
# fenns_add_kernel and runs; a broken kernel fails that build naming its
# file and line.
#   cmake -DBUILD=<fenns build> -DSRC=<fenns source> -DWORK=<dir> -DLIBDIR=<lib dir> -P this
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed:\n${out}")
endif()
foreach(case good broken)
  set(dir ${WORK}/${case})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/kernel_consumer -B ${dir} -DFENNS_PREFIX=${WORK}/prefix
                          -DFENNS_LIBDIR=${LIBDIR} -DKERNEL=${SRC}/tests/kernel_consumer/${case}.glsl
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring the consumer (${case}) failed:\n${out}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(case STREQUAL good)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "building the consumer failed:\n${out}")
    endif()
    execute_process(COMMAND ${dir}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "the consumer's kernel is wrong:\n${out}")
    endif()
    message(STATUS "${out}")
  else()
    if(rc EQUAL 0 OR NOT out MATCHES "broken.glsl:3")
      message(FATAL_ERROR "a broken kernel built, or its error does not name broken.glsl:3:\n${out}")
    endif()
    string(REGEX MATCH "ERROR: [^\n]*broken.glsl:3[^\n]*" line "${out}")
    message(STATUS "broken kernel refused: ${line}")
  endif()
endforeach()
