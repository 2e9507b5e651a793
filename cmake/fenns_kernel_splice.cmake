# Build-time script of fenns_add_kernel: the compute shader of one user
# kernel, fenns' search head + the kernel (its own file and line numbers in
# compiler messages) + the tail.
#   cmake -DHEAD=... -DTAIL=... -DKERNEL=<kernel.glsl> -DOUT=<.comp> -P this
file(READ ${HEAD} head)
file(READ ${TAIL} tail)
file(READ ${KERNEL} kernel)
get_filename_component(name ${KERNEL} NAME)
file(WRITE ${OUT}.tmp "${head}\n#line 1 \"${name}\"\n${kernel}\n${tail}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
