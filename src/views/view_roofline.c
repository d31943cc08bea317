/* What `truecost roofline RUN` takes from a stored run besides the GPU (view_roofline.h). */
#include "views/view_roofline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "views/view_stored.h"

/* The first GPU among the run's sampled devices into out->device. */
static tc_err first_device(tc_store *st, int64_t id, tc_roofline_run *out, char *err, size_t errlen)
{
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n = 0;
    size_t ns = 0;
    tc_err rc = tc_store_load_telemetry(st, id, &devs, &n, &samples, &ns, err, errlen);
    for (int i = 0; rc == TC_OK && i < n && !out->device[0]; i++)
        if (devs[i].info.kind == TC_TELEM_GPU)
            snprintf(out->device, sizeof out->device, "%s", devs[i].info.name);
    free(devs);
    free(samples);
    return rc;
}

tc_err tc_view_roofline_run(tc_store *st, const tc_run_info *run, tc_roofline_run *out, char *err,
                            size_t errlen)
{
    tc_run_metrics m;
    memset(&m, 0, sizeof m);
    memset(out, 0, sizeof *out);
    tc_err rc = tc_store_get_fingerprint(st, run->id, &out->fingerprint, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_summary(st, run, &m, NULL, err, errlen);
    if (rc == TC_OK) {
        out->decode_n = m.decode_tps.n;
        out->decode_p50 = m.decode_tps.n ? m.decode_tps.p50 : 0;
        rc = first_device(st, run->id, out, err, errlen);
    }
    tc_run_metrics_free(&m);
    if (rc != TC_OK)
        tc_view_roofline_run_free(out);
    return rc;
}

void tc_view_roofline_run_free(tc_roofline_run *r)
{
    if (!r)
        return;
    free(r->fingerprint);
    memset(r, 0, sizeof *r);
}
