# fenns_add_kernel(<target> <kernel.glsl> [NAME <identifier>] [INCLUDES <dir>...])
#
# Compiles a user neighbour kernel (the contract is in fenns/fenns_kernel.h)
# into fenns' search shader at build time, with no compiler linked into the
# program: the kernel is spliced between FENNS_KERNEL_HEAD and
# FENNS_KERNEL_TAIL and compiled by glslangValidator into
# <build>/fenns_kernels/<NAME>.spv.h, which defines
#   static const uint32_t <NAME>[];   (SPIR-V words; sizeof gives the bytes)
# for fenns_kernel_info.spirv. <target> gets the directory on its include
# path and rebuilds when the kernel changes. NAME defaults to
# fenns_kernel_<file name without extension>. The kernel may #include files
# from INCLUDES (and rebuilds when the listed DEPENDS change). A compile
# error stops the build with the kernel's file and line.
# Installed (next to fenns_kernel_paths.cmake), the template and the splice
# script are found from this file's folder; in fenns' own build they are set
# before it is included.
if(NOT FENNS_KERNEL_HEAD AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/fenns_kernel_paths.cmake)
  include(${CMAKE_CURRENT_LIST_DIR}/fenns_kernel_paths.cmake)
  get_filename_component(FENNS_KERNEL_SHARE_DIR ${FENNS_KERNEL_SHARE_DIR} ABSOLUTE)
  set(FENNS_KERNEL_HEAD ${FENNS_KERNEL_SHARE_DIR}/fenns_kernel_head.glsl)
  set(FENNS_KERNEL_TAIL ${FENNS_KERNEL_SHARE_DIR}/fenns_kernel_tail.glsl)
endif()
if(NOT FENNS_KERNEL_SPLICE_SCRIPT)
  set(FENNS_KERNEL_SPLICE_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/fenns_kernel_splice.cmake)
endif()
if(NOT FENNS_GLSLANG_VALIDATOR)
  find_program(FENNS_GLSLANG_VALIDATOR glslangValidator)
endif()

function(fenns_add_kernel target kernel)
  cmake_parse_arguments(ARG "" "NAME" "INCLUDES;DEPENDS" ${ARGN})
  set(include_flags)
  foreach(dir ${ARG_INCLUDES})
    get_filename_component(dir ${dir} ABSOLUTE)
    list(APPEND include_flags -I${dir})
  endforeach()
  get_filename_component(kernel ${kernel} ABSOLUTE)
  get_filename_component(stem ${kernel} NAME_WE)
  if(NOT ARG_NAME)
    string(MAKE_C_IDENTIFIER "fenns_kernel_${stem}" ARG_NAME)
  endif()
  if(NOT FENNS_KERNEL_HEAD OR NOT FENNS_KERNEL_TAIL OR NOT FENNS_GLSLANG_VALIDATOR)
    message(FATAL_ERROR "fenns_add_kernel: FENNS_KERNEL_HEAD, FENNS_KERNEL_TAIL or FENNS_GLSLANG_VALIDATOR unset")
  endif()
  set(dir ${CMAKE_BINARY_DIR}/fenns_kernels)
  set(comp ${dir}/${ARG_NAME}.comp)
  set(header ${dir}/${ARG_NAME}.spv.h)
  add_custom_command(
    OUTPUT ${comp}
    COMMAND ${CMAKE_COMMAND} -DHEAD=${FENNS_KERNEL_HEAD} -DTAIL=${FENNS_KERNEL_TAIL} -DKERNEL=${kernel}
            -DOUT=${comp} -P ${FENNS_KERNEL_SPLICE_SCRIPT}
    DEPENDS ${kernel} ${FENNS_KERNEL_HEAD} ${FENNS_KERNEL_TAIL} ${FENNS_KERNEL_SPLICE_SCRIPT}
    COMMENT "fenns kernel ${stem}"
    VERBATIM)
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${FENNS_GLSLANG_VALIDATOR} -V --target-env vulkan1.1 --quiet ${include_flags} --vn ${ARG_NAME}
            -o ${header} ${comp}
    DEPENDS ${comp} ${ARG_DEPENDS}
    COMMENT "glslang ${stem} kernel"
    VERBATIM)
  add_custom_target(${target}_${ARG_NAME} DEPENDS ${header})
  add_dependencies(${target} ${target}_${ARG_NAME})
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
