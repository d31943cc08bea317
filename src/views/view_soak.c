/* A stored soak: its plan, windows and outages read from the store, and (view_soak.h). */
#include "views/view_soak.h"

#include <string.h>

tc_err tc_view_soak(tc_store *st, int64_t run_id, tc_soak_stored *out, int *found, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    tc_err rc = tc_store_soak_get_plan(st, run_id, &out->plan, found, err, errlen);
    if (rc != TC_OK || !*found)
        return rc;
    rc = tc_store_soak_load(st, run_id, &out->windows, &out->n_windows, &out->outages,
                            &out->n_outages, err, errlen);
    if (rc == TC_OK)
        tc_soak_judge(&out->plan, out->windows, out->n_windows, out->outages, out->n_outages,
                      &out->verdict);
    return rc;
}
