/* What `truecost roofline RUN` takes from a stored run besides the GPU
 * table: its first GPU, median decode speed and fingerprint. */
#ifndef TC_VIEW_ROOFLINE_H
#define TC_VIEW_ROOFLINE_H

#include <stddef.h>
#include "analysis/run_metrics.h"
#include "store/store.h"

/* What `truecost roofline RUN` takes from a stored run besides the table. */
typedef struct tc_roofline_run {
    char device[128];  /* first GPU the run sampled; "" = none */
    double decode_p50; /* median client decode tokens/s; 0 = none */
    size_t decode_n;   /* requests behind it */
    char *fingerprint; /* the stored fingerprint's text; NULL = none */
} tc_roofline_run;

/* Loads run's requests, fingerprint and devices into *out (free with
 * tc_view_roofline_run_free; nothing to free on failure). TC_OK, the store's
 * error or TC_ERR_NOMEM, with the detail in err. */
TC_MUST_CHECK tc_err tc_view_roofline_run(tc_store *st, const tc_run_info *run,
                                          tc_roofline_run *out, char *err, size_t errlen);
void tc_view_roofline_run_free(tc_roofline_run *r); /* accepts NULL */

#endif
