/* Frontier readings shared by `frontier` and `compare SWEEP_A SWEEP_B`. */
#include "app/app_frontier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/tc_text.h"
#include "report/report_frontier.h"
#include "core/tc_sort.h"
#include "views/view_frontier.h"

int tc_app_frontier_pair(tc_store *st, const char *which_a, const char *which_b,
                         const tc_cost_profile *pa, const tc_cost_profile *pb, const tc_slo *slo,
                         const tc_frontier_ask *ask, int json)
{
    tc_frontier_side sa = {0}, sb = {0};
    char err[1024];
    tc_err rc = tc_view_frontier_side(st, which_a, "A", pa, slo, &sa, err, sizeof err);
    if (rc == TC_OK && which_b)
        rc = tc_view_frontier_side(st, which_b, "B", pb, slo, &sb, err, sizeof err);
    tc_frontier_result *r = calloc(1, sizeof *r);
    if (rc == TC_OK && !r)
        rc = tc_fail(err, sizeof err, TC_ERR_NOMEM, "out of memory");
    if (rc == TC_OK)
        rc = tc_frontier_compute(&sa, which_b ? &sb : NULL, ask, r, err, sizeof err);
    int code = tc_app_check(rc, err);
    if (!code && json)
        code = tc_app_emit_json("frontier", tc_report_frontier_json(&sa, which_b ? &sb : NULL, r));
    else if (!code)
        code = tc_app_check(tc_report_frontier_text(stdout, &sa, which_b ? &sb : NULL, r), NULL);
    free(r);
    tc_frontier_side_free(&sa);
    tc_frontier_side_free(&sb);
    return code;
}
