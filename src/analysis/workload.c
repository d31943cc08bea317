#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tc_err tc_workload_figures_compute(const tc_run_workload *target, const tc_req_record *recs,
                                   size_t n, tc_workload_figures *out)
{
    memset(out, 0, sizeof *out);
    if (target) {
        out->has_target = 1;
        out->target = *target;
    }
    double *isl = malloc((n ? n : 1) * sizeof *isl);
    double *osl = malloc((n ? n : 1) * sizeof *osl);
    if (!isl || !osl) {
        free(isl);
        free(osl);
        return TC_ERR_NOMEM;
    }
    size_t ni = 0, no = 0;
    for (size_t i = 0; i < n; i++) {
        const tc_req_record *r = &recs[i];
        if (r->warmup || r->error != TC_REQ_OK)
            continue;
        if (r->output_source != TC_TOKENS_NONE)
            osl[no++] = (double)r->output_tokens;
        if (r->prompt_source == TC_TOKENS_NONE)
            continue;
        isl[ni++] = (double)r->prompt_tokens;
        if (target &&
            (double)r->prompt_tokens >=
                (double)target->isl_min * (1 - TC_WORKLOAD_TOLERANCE) - 1e-9 &&
            (double)r->prompt_tokens <= (double)target->isl * (1 + TC_WORKLOAD_TOLERANCE) + 1e-9)
            out->isl_in_range++;
    }
    tc_summary_compute(isl, ni, &out->isl);
    tc_summary_compute(osl, no, &out->osl);
    free(isl);
    free(osl);
    if (target && out->isl.n) {
        double mid = ((double)target->isl_min + (double)target->isl) / 2;
        out->isl_off = fabs(out->isl.mean - mid) > TC_WORKLOAD_TOLERANCE * mid;
    }
    if (target && out->osl.n)
        out->osl_short = out->osl.mean < (double)target->osl * (1 - TC_WORKLOAD_TOLERANCE);
    return TC_OK;
}
