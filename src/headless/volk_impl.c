/*
 * The one translation unit that compiles volk (the Vulkan meta-loader) for
 * the headless helper, the CLI, the samples and the tests. The core library
 * never includes volk: it calls Vulkan only through its own function table.
 *
 * volk.c loads the loader with dlopen, which glibc declares in <dlfcn.h>
 * without feature macros; nothing else is needed on Linux.
 */
#include <volk.c>
