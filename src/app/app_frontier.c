/* truecost frontier's work: one platform's sweep or two priced at equal interactivity, with
 * bootstrap intervals and a claim verdict per target. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_frontier.h"
#include "analysis/bootstrap.h"
#include "analysis/frontier_cost.h"
#include "core/tc_sort.h"
#include "core/tc_text.h"

int tc_app_frontier(tc_app_frontier_args *a)
{
    tc_cost_profile pa, pb;
    if (tc_app_load_profile(a->profile_a, &pa) ||
        (a->profile_b && tc_app_load_profile(a->profile_b, &pb)))
        return TC_EXIT_USAGE;
    tc_store *st;
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_frontier_ask ask = {.targets = a->targets,
                           .n_targets = a->n_targets,
                           .resamples = a->resamples ? (int)a->resamples : TC_FRONTIER_RESAMPLES,
                           .seed = (uint64_t)a->seed,
                           .has_claim = !isnan(a->claim),
                           .claim = a->claim,
                           .demand = a->demand};
    code = tc_app_frontier_pair(st, a->pos[0], a->pos[1], &pa, a->profile_b ? &pb : &pa,
                                a->slo_text ? &a->slo : NULL, &ask, a->json);
    tc_store_close(st);
    return code;
}
