/* The one-shot host search: a searcher sized for one call, handed to the
 * result so that its arrays need no copy; and releasing such results. */
#include <string.h>

#include "host_searcher.h"

fenns_result fenns_host_search(fenns_context context, const fenns_host_search_info *info, fenns_host_csr *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!context || !info || !out) return FENNS_ERROR_INVALID_ARGUMENT;
    fenns_host_searcher searcher = NULL;
    fenns_result r = fenns_host_searcher_create(context, &searcher);
    if (r == FENNS_SUCCESS) r = fenns_host_searcher_run(searcher, info, out);
    if (r != FENNS_SUCCESS) {
        fenns_host_searcher_destroy(searcher);
        return r;
    }
    out->owner = searcher;
    return FENNS_SUCCESS;
}

void fenns_host_csr_free(fenns_context context, fenns_host_csr *csr) {
    (void)context; /* the owner knows its context */
    if (!csr) return;
    /* owner is set only on fenns_host_search results: a searcher's own
     * results point into memory it keeps, and clearing them is all. */
    fenns_host_searcher_destroy((fenns_host_searcher)csr->owner);
    memset(csr, 0, sizeof *csr);
}
