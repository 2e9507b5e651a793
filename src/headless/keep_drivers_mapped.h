/* keep_drivers_mapped.c: the loaded Vulkan drivers and layers stay mapped
 * until exit under AddressSanitizer, so LeakSanitizer can see what they hold. */
#ifndef FENNS_HEADLESS_KEEP_DRIVERS_MAPPED_H
#define FENNS_HEADLESS_KEEP_DRIVERS_MAPPED_H

void fenns__headless_keep_drivers_mapped(void);

#endif
