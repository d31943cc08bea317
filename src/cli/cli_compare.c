/* truecost compare RUN_A RUN_B: two platforms side by side, ratios B/A
 * with bootstrap confidence intervals, the verdict on a claimed ratio, and
 * what else differs between the runs. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_compare.h"
#include "cli_roofline.h"
#include "cli_results.h"
#include "report/report_json.h"

typedef struct compare_args {
    const char *run_a, *run_b, *profile_a, *profile_b, *db, *specs;
    int json, help, has_claim;
    double claim;
    long long resamples, seed;
} compare_args;

void tc_cmd_compare_help(FILE *out)
{
    fprintf(out,
            "Usage: truecost compare RUN_A RUN_B [--profile-a FILE --profile-b FILE]\n"
            "                        [--claim X] [--resamples N] [--seed S] [--gpu-specs FILE]\n"
            "                        [--json] [--db PATH]\n"
            "\n"
            "Two stored runs (ids, labels, or groups from 'run --repeat') side by side:\n"
            "throughput, TTFT/ITL/E2E percentiles, power, J/token and, with a cost profile\n"
            "for each side, cost per million tokens; ratios B/A with 95%% bootstrap\n"
            "intervals (%d resamples, seeded: the same inputs give the same interval).\n"
            "Groups are resampled run by run (run-to-run variation covered); single runs\n"
            "request by request (run-to-run variation NOT covered: use --repeat).\n"
            "\n"
            "  --claim X   judge \"A is X times more cost-efficient than B\" (cost B / cost A;\n"
            "              without profiles, throughput A / B): supported when the whole\n"
            "              interval is at or above X, refuted when it is below, else\n"
            "              inconclusive\n"
            "\n"
            "Where a side's GPU is in the spec table (see 'truecost roofline --list'; add\n"
            "rows with --gpu-specs), its median decode speed is shown as a share of the\n"
            "bandwidth bound.\n"
            "\n"
            "Differences other than the hardware (drivers, server version, quantisation,\n"
            "prompts, concurrency, max tokens) are listed as warnings.\n"
            "Exit status: 0 done, 1 usage or bad profile, 2 run or database not found.\n",
            TC_BOOT_RESAMPLES);
}

enum { OPT_DB = 256, OPT_JSON, OPT_PA, OPT_PB, OPT_CLAIM, OPT_RESAMPLES, OPT_SEED, OPT_SPECS };

static const struct option options[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"json", no_argument, NULL, OPT_JSON},
    {"profile-a", required_argument, NULL, OPT_PA},
    {"profile-b", required_argument, NULL, OPT_PB},
    {"claim", required_argument, NULL, OPT_CLAIM},
    {"resamples", required_argument, NULL, OPT_RESAMPLES},
    {"seed", required_argument, NULL, OPT_SEED},
    {"gpu-specs", required_argument, NULL, OPT_SPECS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_opt(int opt, compare_args *a)
{
    switch (opt) {
    case OPT_DB:
        a->db = optarg;
        return 0;
    case OPT_JSON:
        a->json = 1;
        return 0;
    case OPT_PA:
        a->profile_a = optarg;
        return 0;
    case OPT_PB:
        a->profile_b = optarg;
        return 0;
    case OPT_CLAIM:
        a->has_claim = 1;
        return tc_cli_double("--claim", optarg, 1e-6, 1e6, &a->claim);
    case OPT_RESAMPLES:
        return tc_cli_int("--resamples", optarg, TC_BOOT_MIN_RESAMPLES, 10000000, &a->resamples);
    case OPT_SEED:
        return tc_cli_int("--seed", optarg, 0, INT64_MAX, &a->seed);
    case OPT_SPECS:
        a->specs = optarg;
        return 0;
    case 'h':
        a->help = 1;
        return 0;
    default:
        return -1;
    }
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    memset(a, 0, sizeof *a);
    a->resamples = TC_BOOT_RESAMPLES;
    a->seed = TC_BOOT_SEED;
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (parse_opt(opt, a) < 0) {
            if (opt == '?' || opt == 'h' || opt == ':')
                tc_cli_error("compare: unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc)
        a->run_a = argv[optind++];
    if (optind < argc)
        a->run_b = argv[optind++];
    if (optind < argc) {
        tc_cli_error("compare: unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (a->help)
        return 0;
    if (!a->run_b) {
        tc_cli_error("compare: give two runs, RUN_A and RUN_B (ids, labels or groups; see "
                     "'truecost runs')");
        return -1;
    }
    if (!a->profile_a != !a->profile_b) {
        tc_cli_error("compare: give both --profile-a and --profile-b (each platform's own cost "
                     "profile), or neither");
        return -1;
    }
    return 0;
}

/* ---- one side ----------------------------------------------------------- */

static int load_side(tc_store *st, const char *which, compare_side *s)
{
    int code = tc_cli_runset_find(st, which, &s->set);
    if (code)
        return code;
    if ((code = tc_cli_runset_load(st, &s->set, &s->f)) != 0)
        return code;
    char *fp = NULL, err[512];
    if (tc_store_get_fingerprint(st, s->set.runs[0].id, &fp, err, sizeof err) == TC_OK && fp)
        s->fingerprint = json_loads(fp, 0, NULL);
    free(fp);
    return 0;
}

static void free_side(compare_side *s)
{
    tc_runset_figures_free(s->f, s->set.n);
    tc_runset_free(&s->set);
    json_decref(s->fingerprint);
    tc_compare_side_free(&s->boot);
}

/* The bootstrap values: each run of a group (of 2 or more), else the
 * requests of the one run. */
static int side_sample(compare_side *s)
{
    tc_err e;
    if (s->set.n >= 2) {
        double *tps = calloc(s->set.n, sizeof *tps);
        if (!tps)
            return -1;
        for (size_t i = 0; i < s->set.n; i++)
            tps[i] = s->f[i].cost_in.output_tokens_per_s;
        e = tc_compare_side_runs(tps, s->set.n, &s->boot);
        free(tps);
    } else {
        e = tc_compare_side_requests(s->f[0].recs, s->f[0].n_recs, s->cost_in.output_tokens_per_s,
                                     &s->boot);
    }
    if (e != TC_OK) {
        tc_cli_error("compare: %s '%s' has no completed request with output tokens (or a run "
                     "of the group has none), so there is no throughput to compare",
                     s->label, s->set.name);
        return -1;
    }
    return 0;
}

static void bound_side(const tc_roofline_table *t, compare_side *s)
{
    int valid;
    double decode = tc_compare_side_mean(s, tc_compare_get_decode_p50, &valid);
    tc_cli_roofline_brief(t, tc_cli_first_gpu(&s->f[0].e), s->fingerprint, valid ? decode : 0,
                          &s->roof);
}

static void price_side(compare_side *s)
{
    if (!s->profile)
        return;
    s->has_cost = tc_cost_compute(s->profile, &s->cost_in, &s->cost) == TC_OK && s->cost.has_cost;
}

/* ---- the comparison ------------------------------------------------------ */

/* Widens ci to cover [lo, hi] too. */
static void widen(tc_boot_ci *ci, double lo, double hi)
{
    ci->lo = fmin(ci->lo, lo);
    ci->hi = fmax(ci->hi, hi);
}

/* Groups on both sides: the percentile bootstrap of a few runs is too
 * narrow, so every interval becomes the wider of it and the Welch t
 * interval of R = B/A on the log scale. Each figure is a monotone function
 * of R: throughput B/A is R, A/B is 1/R, and cost B / cost A is K / R
 * (per month / tokens per month, with the tokens linear in throughput). */
static void widen_run_level(compare_result *r)
{
    double lo, hi;
    r->method = "percentile bootstrap";
    if (tc_compare_welch_log_ratio(&r->a.boot, &r->b.boot, &lo, &hi) < 0)
        return;
    r->method = "the wider of the percentile bootstrap and a Welch t interval on the log ratio";
    double R = r->tps_ratio.point;
    widen(&r->tps_ratio, lo, hi);
    if (r->has_cost_ratio) {
        double k = r->cost_ratio.point * R;
        widen(&r->cost_ratio, k / hi, k / lo);
    }
    if (r->claim.given && !r->claim.on_cost)
        widen(&r->claim.ci, 1 / hi, 1 / lo);
    else if (r->claim.given)
        r->claim.ci = r->cost_ratio;
}

/* The intervals of every figure from one set of resamples: the draws are
 * the costly part (n draws a resample), the maps are cheap. */
static int intervals(const compare_args *a, compare_result *r, const double *sa, const double *sb)
{
    tc_boot_sample A = tc_compare_side_sample(&r->a.boot), B = tc_compare_side_sample(&r->b.boot);
    int n = (int)a->resamples;
    uint64_t seed = (uint64_t)a->seed;
    char err[256];
    if (tc_boot_ci_from_draws(&A, &B, sa, sb, n, seed, tc_boot_ratio_b_over_a, NULL, 0.95,
                              &r->tps_ratio, err, sizeof err) != TC_OK) {
        tc_cli_error("compare: throughput ratio: %s", err);
        return -1;
    }
    tc_compare_cost_ctx cc = {r->a.profile, r->b.profile, r->a.cost_in, r->b.cost_in};
    if (r->a.has_cost && r->b.has_cost) {
        if (tc_boot_ci_from_draws(&A, &B, sa, sb, n, seed, tc_compare_cost_ratio, &cc, 0.95,
                                  &r->cost_ratio, err, sizeof err) != TC_OK) {
            tc_cli_error("compare: cost ratio: %s", err);
            return -1;
        }
        r->has_cost_ratio = 1;
    }
    if (!a->has_claim)
        return 0;
    compare_claim *c = &r->claim;
    c->given = 1;
    c->x = a->claim;
    c->on_cost = r->has_cost_ratio;
    c->why = !r->a.profile ? "no cost profiles given: judged on throughput; add "
                             "--profile-a/--profile-b to judge cost"
                           : "a cost is not available (no power measured and no [power] "
                             "busy_watts in its profile): judged on throughput instead";
    if (c->on_cost)
        c->ci = r->cost_ratio;
    else if (tc_boot_ci_from_draws(&A, &B, sa, sb, n, seed, tc_compare_a_over_b, NULL, 0.95, &c->ci,
                                   err, sizeof err) != TC_OK) {
        tc_cli_error("compare: claim: %s", err);
        return -1;
    }
    c->verdict = tc_claim_judge(&c->ci, c->x);
    return 0;
}

static int confidence(const compare_args *a, compare_result *r)
{
    tc_boot_sample A = tc_compare_side_sample(&r->a.boot), B = tc_compare_side_sample(&r->b.boot);
    double *sa = malloc((size_t)a->resamples * sizeof *sa);
    double *sb = malloc((size_t)a->resamples * sizeof *sb);
    int rc = -1;
    if (!sa || !sb)
        tc_cli_error("compare: out of memory for %lld resamples", a->resamples);
    else {
        tc_boot_draw(&A, &B, (int)a->resamples, (uint64_t)a->seed, sa, sb);
        rc = intervals(a, r, sa, sb);
    }
    if (rc == 0) {
        widen_run_level(r);
        if (r->claim.given)
            r->claim.verdict = tc_claim_judge(&r->claim.ci, r->claim.x);
    }
    free(sa);
    free(sb);
    return rc;
}

static int load_profiles(const compare_args *a, tc_cost_profile *pa, tc_cost_profile *pb)
{
    char err[1024];
    if (!a->profile_a)
        return 0;
    if (tc_cost_profile_load(a->profile_a, pa, err, sizeof err) != TC_OK ||
        tc_cost_profile_load(a->profile_b, pb, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return -1;
    }
    if (strcmp(pa->currency, pb->currency) != 0) {
        tc_cli_error("compare: %s is in %s but %s is in %s: give both profiles in one currency",
                     a->profile_a, pa->currency, a->profile_b, pb->currency);
        return -1;
    }
    return 0;
}

/* 1 when both sides are the very same runs. */
static int same_runs(const compare_side *a, const compare_side *b)
{
    if (a->set.n != b->set.n)
        return 0;
    for (size_t i = 0; i < a->set.n; i++)
        if (a->set.runs[i].id != b->set.runs[i].id)
            return 0;
    return 1;
}

static void quality(compare_result *r)
{
    int max = (int)(sizeof r->warnings / sizeof r->warnings[0]);
    r->n_warnings = tc_figures_quality_warnings("A", &r->a.set, r->a.f, r->warnings, max);
    r->n_warnings += tc_figures_quality_warnings("B", &r->b.set, r->b.f,
                                                 r->warnings + r->n_warnings, max - r->n_warnings);
    if (same_runs(&r->a, &r->b) && r->n_warnings < max)
        snprintf(r->warnings[r->n_warnings++], sizeof r->warnings[0],
                 "A and B are the same runs: the ratio is 1 by construction and the interval "
                 "treats them as two samples");
}

static int compare(tc_store *st, const compare_args *a, const tc_cost_profile *pa,
                   const tc_cost_profile *pb, compare_result *r)
{
    int code;
    r->a.label = "A";
    r->b.label = "B";
    if ((code = load_side(st, a->run_a, &r->a)) || (code = load_side(st, a->run_b, &r->b)))
        return code;
    r->a.profile = a->profile_a ? pa : NULL;
    r->b.profile = a->profile_b ? pb : NULL;
    compare_side *sides[2] = {&r->a, &r->b};
    for (int i = 0; i < 2; i++) {
        tc_figures_mean_cost_inputs(sides[i]->f, sides[i]->set.n, &sides[i]->cost_in,
                                    &sides[i]->tps);
        if (side_sample(sides[i]) < 0)
            return TC_EXIT_RUNTIME;
        price_side(sides[i]);
        for (size_t k = 0; k < sides[i]->set.n; k++)
            r->simulated |= sides[i]->set.runs[k].simulated;
    }
    tc_roofline_table t = {0};
    if ((code = tc_cli_roofline_table_load(a->specs, &t)) != 0)
        return code;
    bound_side(&t, &r->a);
    bound_side(&t, &r->b);
    tc_roofline_table_free(&t);
    r->resampling = r->a.boot.run_level && r->b.boot.run_level     ? "runs"
                    : !r->a.boot.run_level && !r->b.boot.run_level ? "requests"
                                                                   : "mixed";
    if (confidence(a, r) < 0)
        return TC_EXIT_RUNTIME;
    quality(r);
    r->differences = tc_compare_differences(&r->a.set.runs[0], &r->b.set.runs[0], r->a.fingerprint,
                                            r->b.fingerprint);
    if (!r->differences) {
        tc_cli_error("compare: out of memory");
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

static int emit(const compare_result *r, int json)
{
    if (!json) {
        tc_compare_print(r);
        return 0;
    }
    char err[256];
    json_t *doc = tc_compare_json(r);
    int code = doc && tc_json_dump(stdout, doc, err, sizeof err) == TC_OK ? 0 : TC_EXIT_RUNTIME;
    json_decref(doc);
    return code;
}

int tc_cmd_compare(int argc, char **argv)
{
    compare_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("compare");
    if (a.help) {
        tc_cmd_compare_help(stdout);
        return 0;
    }
    tc_cost_profile pa, pb;
    if (load_profiles(&a, &pa, &pb) < 0)
        return TC_EXIT_USAGE;
    tc_store *st;
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    compare_result r;
    memset(&r, 0, sizeof r);
    code = compare(st, &a, &pa, &pb, &r);
    if (!code)
        code = emit(&r, a.json);
    free_side(&r.a);
    free_side(&r.b);
    json_decref(r.differences);
    tc_store_close(st);
    return code;
}
