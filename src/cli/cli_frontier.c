/* truecost frontier: cost per million tokens at equal interactivity, one
 * platform's sweep or two, with bootstrap intervals and a claim verdict
 * per target. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/frontier_cost.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_results.h"
#include "report/report_frontier.h"

typedef struct frontier_args {
    const char *db, *profile, *profile_b, *at, *slo_text, *pos[2];
    tc_slo slo;
    long long resamples, seed;
    double claim, demand;
    int json, help, has_claim;
    double targets[TC_FRONTIER_MAX_TARGETS];
    size_t n_targets;
} frontier_args;

static int take_claim(const char *v, void *ctx)
{
    frontier_args *a = ctx;
    a->has_claim = 1;
    return tc_cli_double("--claim", v, 1e-9, 1e9, &a->claim);
}

/* "20,35,50,100": interactivities above 0. */
static int parse_targets(frontier_args *a)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", a->at ? a->at : "20,35,50,100");
    a->n_targets = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (*end || !(v > 0) || !isfinite(v) || a->n_targets == TC_FRONTIER_MAX_TARGETS) {
            tc_cli_error("frontier: --at '%s': expected up to %d interactivities (tokens/s per "
                         "user) above 0, e.g. 20,35,50,100",
                         a->at, TC_FRONTIER_MAX_TARGETS);
            return -1;
        }
        a->targets[a->n_targets++] = v;
    }
    return a->n_targets ? 0 : -1;
}

static int parse(int argc, char **argv, frontier_args *a)
{
    memset(a, 0, sizeof *a);
    a->resamples = TC_FRONTIER_RESAMPLES;
    a->seed = TC_BOOT_SEED;
    const tc_cli_opt opts[] = {
        TC_OPT_S("db", 0, &a->db),
        TC_OPT_S("profile", 0, &a->profile),
        TC_OPT_S("profile-b", 0, &a->profile_b),
        TC_OPT_S("at", 0, &a->at),
        TC_OPT_I("resamples", 0, &a->resamples, 0, 1000000),
        TC_OPT_I("seed", 0, &a->seed, 0, (long long)(~0ULL >> 1)),
        TC_OPT_C("claim", 0, take_claim, 1),
        TC_OPT_D("demand", 0, &a->demand, 1, 1e18),
        TC_OPT_S("slo", 0, &a->slo_text),
        TC_OPT_F("json", 0, &a->json),
        TC_OPT_END,
    };
    if (tc_cli_parse("frontier", argc, argv, opts, a, &a->help, a->pos, 2, NULL) < 0)
        return -1;
    if (a->help)
        return 0;
    if (!a->pos[0] || !a->profile) {
        tc_cli_error("frontier: give a sweep (or run, or group) and --profile FILE; a second "
                     "sweep to compare, with --profile-b for its hardware");
        return -1;
    }
    char err[512];
    if (a->slo_text && tc_slo_parse(a->slo_text, &a->slo, err, sizeof err) != TC_OK) {
        tc_cli_error("frontier: %s", err);
        return -1;
    }
    if (a->has_claim && !a->pos[1]) {
        tc_cli_error("frontier: --claim compares two platforms: give SWEEP_B too");
        return -1;
    }
    return parse_targets(a);
}

static int load_profile(const char *path, tc_cost_profile *p)
{
    char err[1024];
    if (tc_cost_profile_load(path, p, err, sizeof err) == TC_OK)
        return 0;
    tc_cli_error("%s", err);
    return -1;
}

static int print(const frontier_args *a, const tc_frontier_side *sa, const tc_frontier_side *sb,
                 const tc_frontier_result *r)
{
    if (a->json)
        return tc_cli_emit_json("frontier", tc_report_frontier_json(sa, sb, r));
    return tc_cli_check(tc_report_frontier_text(stdout, sa, sb, r), NULL);
}

int tc_cmd_frontier(int argc, char **argv)
{
    frontier_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("frontier");
    if (a.help) {
        tc_cli_help("frontier", stdout);
        return 0;
    }
    tc_cost_profile pa, pb;
    if (load_profile(a.profile, &pa) < 0 || (a.profile_b && load_profile(a.profile_b, &pb) < 0))
        return TC_EXIT_USAGE;
    tc_store *st;
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_frontier_side sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    char err[1024];
    const tc_slo *slo = a.slo_text ? &a.slo : NULL;
    tc_err rc = tc_frontier_side_load(st, a.pos[0], "A", &pa, slo, &sa, err, sizeof err);
    if (rc == TC_OK && a.pos[1])
        rc = tc_frontier_side_load(st, a.pos[1], "B", a.profile_b ? &pb : &pa, slo, &sb, err,
                                   sizeof err);
    tc_frontier_result *r = calloc(1, sizeof *r);
    tc_frontier_ask ask = {.targets = a.targets,
                           .n_targets = a.n_targets,
                           .resamples = (int)a.resamples,
                           .seed = (uint64_t)a.seed,
                           .has_claim = a.has_claim,
                           .claim = a.claim,
                           .demand = a.demand};
    if (rc == TC_OK && !r)
        rc = tc_fail(err, sizeof err, TC_ERR_NOMEM, "out of memory");
    if (rc == TC_OK)
        rc = tc_frontier_compute(&sa, a.pos[1] ? &sb : NULL, &ask, r, err, sizeof err);
    code = tc_cli_check(rc, err);
    if (!code)
        code = print(&a, &sa, a.pos[1] ? &sb : NULL, r);
    free(r);
    tc_frontier_side_free(&sa);
    tc_frontier_side_free(&sb);
    tc_store_close(st);
    return code;
}
