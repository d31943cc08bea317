/* Frontier readings shared by `frontier` and `compare SWEEP_A SWEEP_B`. */
#include "cli_frontier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "core/tc_text.h"
#include "report/report_frontier.h"
#include "core/tc_sort.h"
#include "views/view_frontier.h"

int tc_cli_frontier_targets(const char *cmd, const char *text, double *out, size_t *n)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text ? text : "20,35,50,100");
    *n = 0;
    if (text && tc_list_has_empty(text)) {
        tc_cli_error("%s: --at '%s': an empty item; expected interactivities (tokens/s per user) "
                     "above 0 separated by single commas, e.g. 20,35,50,100",
                     cmd, text);
        return -1;
    }
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (*end || !(v >= TC_OPT_AT_MIN && v <= TC_OPT_AT_MAX) || *n == TC_FRONTIER_MAX_TARGETS) {
            tc_cli_error("%s: --at '%s': expected up to %d interactivities (tokens/s per user) "
                         "from %g to %g, e.g. 20,35,50,100",
                         cmd, text, TC_FRONTIER_MAX_TARGETS, TC_OPT_AT_MIN, TC_OPT_AT_MAX);
            return -1;
        }
        out[(*n)++] = v;
    }
    if (*n == 0) {
        tc_cli_error("%s: --at '%s': give at least one interactivity, e.g. 20,35,50,100", cmd,
                     text ? text : "");
        return -1;
    }
    /* Rising order, so the verdicts read as a stretch of interactivity. */
    tc_sort_double(out, *n);
    for (size_t i = 1; i < *n; i++)
        if (out[i] == out[i - 1]) {
            tc_cli_error("%s: --at '%s': %g is given twice", cmd, text, out[i]);
            return -1;
        }
    return 0;
}

int tc_cli_frontier_pair(tc_store *st, const char *which_a, const char *which_b,
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
    int code = tc_cli_check(rc, err);
    if (!code && json)
        code = tc_cli_emit_json("frontier", tc_report_frontier_json(&sa, which_b ? &sb : NULL, r));
    else if (!code)
        code = tc_cli_check(tc_report_frontier_text(stdout, &sa, which_b ? &sb : NULL, r), NULL);
    free(r);
    tc_frontier_side_free(&sa);
    tc_frontier_side_free(&sb);
    return code;
}
