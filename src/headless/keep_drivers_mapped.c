/*
 * Under AddressSanitizer only: keeps the Vulkan drivers and layers that the
 * loader has loaded mapped until the process exits.
 *
 * The loader unloads them at vkDestroyInstance. Memory they still hold in
 * their own globals then has no owner LeakSanitizer can see or name (Debian
 * 12's lavapipe: 128 bytes per process, "<unknown module>"), and every
 * sanitized program that uses a GPU would fail on it. Mapped, those blocks
 * stay reachable, and a driver's or layer's real leak is reported under its
 * module's name (where a suppression can name it); fenns' own leaks are
 * reported as ever. Elsewhere this does nothing.
 */
#if defined(__SANITIZE_ADDRESS__) && defined(__linux__)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#endif

#include "keep_drivers_mapped.h"

#if defined(__SANITIZE_ADDRESS__) && defined(__linux__)
static int keep_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *name = info->dlpi_name;
    /* Drivers (libvulkan_lvp.so, libvulkan_radeon.so, ...) and layers
     * (libVkLayer_*.so); a reference taken only if it is loaded already. */
    if (name && (strstr(name, "libvulkan_") || strstr(name, "libVkLayer_")))
        (void)dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    return 0;
}
#endif

void fenns__headless_keep_drivers_mapped(void)
{
#if defined(__SANITIZE_ADDRESS__) && defined(__linux__)
    dl_iterate_phdr(keep_one, NULL);
#endif
}
