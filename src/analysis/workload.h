/* A run's achieved prompt and output lengths (ISL and OSL), as the server
 * counted them, beside the targets of a run of synthetic prompts (run
 * --isl/--workload). Over the completed measured requests: the ISL over
 * those with a prompt count, the OSL over all of them. */
#ifndef TC_ANALYSIS_WORKLOAD_H
#define TC_ANALYSIS_WORKLOAD_H

#include <stddef.h>

#include "analysis/stats.h"
#include "core/tc_error.h"
#include "record/record.h"

/* How far the achieved lengths may stray from the targets before the
 * report says so: 5%. */
#define TC_WORKLOAD_TOLERANCE 0.05

typedef struct tc_workload_figures {
    int has_target; /* the run had a workload shape */
    tc_run_workload target;
    tc_summary isl, osl; /* per request; n = 0: none counted */
    /* With a target: requests whose prompt count lies within 5% of the
     * target range [isl_min, isl], of isl.n. */
    size_t isl_in_range;
    int isl_off;   /* the mean ISL is more than 5% from the target range's middle */
    int osl_short; /* the mean OSL is more than 5% under the target */
} tc_workload_figures;

/* Computes *out from n records (target may be NULL: no shape). TC_OK or
 * TC_ERR_NOMEM (out is then empty). */
TC_MUST_CHECK tc_err tc_workload_figures_compute(const tc_run_workload *target,
                                                 const tc_req_record *recs, size_t n,
                                                 tc_workload_figures *out);

#endif
