# ctest package / package_subdirectory: fenns as users consume it.
#   cmake -DMODE=install -DBUILD=<fenns build> -DSRC=<source> -DWORK=<dir> -DLIBDIR=<lib dir> [-DFLAGS=...] -P this
#     cmake --install to a scratch prefix; the shared library exports exactly
#     the functions fenns.h declares; tests/package_consumer built with
#     find_package(fenns CONFIG) (C99 and C++17) and run; the C99 program
#     built once more with pkg-config (fenns-headless) and run.
#   cmake -DMODE=subdirectory -DSRC=<source> -DWORK=<dir> [-DFLAGS=...] -P this
#     the consumer with add_subdirectory(<source>), built and run.
# FLAGS: compiler and linker flags for the consumers (the sanitizers when
# fenns was built with them).
file(REMOVE_RECURSE ${WORK})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

function(build_and_run_consumer dir)
  run("configuring the consumer" ${CMAKE_COMMAND} -S ${SRC}/tests/package_consumer -B ${dir}
      -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=${FLAGS}" "-DCMAKE_CXX_FLAGS=${FLAGS}" ${ARGN})
  run("building the consumer" ${CMAKE_COMMAND} --build ${dir} -j2)
  foreach(program consumer_c99 consumer_cxx17)
    run("running ${program}" ${dir}/${program})
    message(STATUS "${run_output}")
  endforeach()
endfunction()

if(MODE STREQUAL subdirectory)
  build_and_run_consumer(${WORK}/subdirectory -DFENNS_SOURCE=${SRC})
  return()
endif()

set(prefix ${WORK}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})

# Exported symbols = the functions fenns.h declares.
file(READ ${SRC}/include/fenns/fenns.h header)
# (declarations start a line with their return type; comments start with " *")
string(REGEX MATCHALL "\n[a-z][a-z0-9_ ]*[ *]fenns_[a-z0-9_]+\\(" declared "${header}")
list(TRANSFORM declared REPLACE "^.*[ *](fenns_[a-z0-9_]+)\\($" "\\1")
list(REMOVE_DUPLICATES declared)
list(SORT declared)
run("nm" nm -D --defined-only ${prefix}/${LIBDIR}/libfenns.so)
string(REGEX MATCHALL "[^\n]+" lines "${run_output}")
set(exported)
foreach(line ${lines})
  string(REGEX REPLACE "^.* " "" name "${line}")
  list(APPEND exported ${name})
endforeach()
list(SORT exported)
if(NOT exported STREQUAL declared)
  message(FATAL_ERROR "libfenns.so exports\n  ${exported}\nbut fenns.h declares\n  ${declared}")
endif()
list(LENGTH exported n)
message(STATUS "libfenns.so exports the ${n} functions fenns.h declares, nothing else")

build_and_run_consumer(${WORK}/find_package -DCMAKE_PREFIX_PATH=${prefix})

# pkg-config, as a Makefile would use it.
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run("pkg-config" pkg-config --cflags --libs fenns-headless)
string(STRIP "${run_output}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
run("cc with pkg-config" cc -std=c99 -Wall -Wextra -Wpedantic -Werror ${flags} "-DCONSUMER_LANGUAGE=\"C99, pkg-config\""
    -o ${WORK}/consumer_pkg_config ${SRC}/tests/package_consumer/consumer.c ${pc_flags}
    -Wl,-rpath,${prefix}/${LIBDIR})
run("running the pkg-config build" ${WORK}/consumer_pkg_config)
message(STATUS "${run_output}")
