/* truecost sweep: one stored run per operating point (concurrencies of a
 * closed loop, or rates of an open one), as a group of kind "sweep"; a
 * progress line per point, the table (or document) at the end. Every other
 * option is run's, parsed by run's parser. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "cli_run.h"

typedef tc_measure_sweep_args sweep_args;

/* Takes out sweep's own options; the rest goes to run's parser. */
static int split_args(int argc, char **argv, sweep_args *s, char **rest, int *n_rest)
{
    const tc_cli_opt opts[] = {
        TC_OPT_S("concurrency", 'c', &s->concurrency),
        TC_OPT_S("rates", 0, &s->rates),
        TC_OPT_I("gpus", 0, &s->gpus, 1, 100000),
        TC_OPT_I("points", 0, &s->points, 2, TC_MEASURE_SWEEP_MAX),
        TC_OPT_I("max-concurrency", 0, &s->max_concurrency, 1, 10000),
        TC_OPT_S("arrival", 0, &s->arrival),
        TC_OPT_D("burstiness", 0, &s->burstiness, 1e-6, 1e6),
        TC_OPT_END,
    };
    return tc_cli_split("sweep", argc, argv, opts, NULL, NULL, rest, n_rest);
}

static int check_sweep_args(sweep_args *s, const run_args *a)
{
    char err[512];
    if (tc_measure_sweep_settle(s, a, err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("sweep: %s", err);
    return -1;
}

int tc_cmd_sweep(int argc, char **argv)
{
    sweep_args s = {0};
    char *rest[argc + 1];
    int n_rest;
    run_args a;
    if (split_args(argc, argv, &s, rest, &n_rest) < 0 ||
        tc_cli_run_parse_args(n_rest, rest, &a) < 0)
        return tc_cli_usage_hint("sweep");
    if (check_sweep_args(&s, &a) < 0)
        return tc_cli_usage_hint("sweep");
    return tc_app_sweep(&a, &s);
}
