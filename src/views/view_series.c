/* A stored run's timeline (view_series.h). */
#include "views/view_series.h"

#include <stdlib.h>

static tc_err add(void *ctx, const tc_req_record *r)
{
    tc_run_series_add(ctx, r);
    return TC_OK;
}

tc_err tc_view_run_series(tc_store *st, const tc_run_info *run, const tc_run_metrics *m,
                          tc_run_series *out, char *err, size_t errlen)
{
    if (!tc_run_series_begin(out, m))
        return TC_OK;
    /* Every chunk when there are gaps to count. */
    tc_err rc = tc_store_each_request(st, run->id, !(m->itl_ms.n > 0), add, out, err, errlen);
    if (rc != TC_OK)
        return rc;
    tc_run_series_end(out);
    tc_run_device *devs = NULL;
    tc_run_sample *smp = NULL;
    int n_devs = 0;
    size_t n_smp = 0;
    rc = tc_store_load_telemetry(st, run->id, &devs, &n_devs, &smp, &n_smp, err, errlen);
    if (rc == TC_OK)
        tc_run_series_samples(out, smp, n_smp);
    free(devs);
    free(smp);
    return rc;
}
