/* Evidence for lockin and decide from files and stored runs. */
#include "cli_evidence.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "assess/gaps.h"
#include "cli.h"
#include "cli_results.h"
#include "cli_runset.h"

int tc_cli_evidence_option(int opt, int argc, char **argv, const char *runs_name,
                           tc_cli_evidence_opts *o)
{
    switch (opt) {
    case TC_EV_OPT_GAPS:
        o->gaps_file = optarg;
        return 1;
    case TC_EV_OPT_RUNS:
        /* Two values: the second is the next word, taken here. */
        if (optind >= argc || argv[optind][0] == '-') {
            tc_cli_error("%s takes two runs: INCUMBENT ALTERNATIVE (ids, labels or groups)",
                         runs_name);
            return -1;
        }
        o->run_a = optarg;
        o->run_b = argv[optind++];
        return 1;
    case TC_EV_OPT_PROFILE_A:
        o->profile_a = optarg;
        return 1;
    case TC_EV_OPT_PROFILE_B:
        o->profile_b = optarg;
        return 1;
    case TC_EV_OPT_DB:
        o->db = optarg;
        return 1;
    case TC_EV_OPT_SOAK:
        o->soak = optarg;
        return 1;
    }
    return 0;
}

int tc_cli_evidence_check(const tc_cli_evidence_opts *o, const char *runs_name)
{
    if (!o->profile_a != !o->profile_b) {
        tc_cli_error("give both --profile-a and --profile-b (each platform's cost profile), or "
                     "neither");
        return -1;
    }
    if (o->profile_a && !o->run_a) {
        tc_cli_error("--profile-a/--profile-b price the runs of %s A B: give them too", runs_name);
        return -1;
    }
    return 0;
}

static int read_gaps(const char *path, tc_cli_evidence *ev, tc_lockin_overrides *ov)
{
    char *text = NULL, err[1024];
    size_t len = 0;
    if (tc_gaps_read_file(path, &text, &len, err, sizeof err) != TC_OK) {
        tc_cli_error("--gaps: %s", err);
        return TC_EXIT_RUNTIME;
    }
    tc_err rc = tc_gaps_summary_parse(path, text, len, &ev->gaps, err, sizeof err);
    free(text);
    if (rc != TC_OK) {
        tc_cli_error("--gaps: %s", err);
        return TC_EXIT_USAGE;
    }
    ev->has_gaps = 1;
    ov->has_operators = 1;
    ov->op_low = ev->gaps.t_low;
    ov->op_mode = ev->gaps.t_mode;
    ov->op_high = ev->gaps.t_high;
    snprintf(ov->op_source, sizeof ov->op_source, "gap table %s", path);
    return 0;
}

/* The worst status of the target's runs: interrupted and failed are worse
 * than complete. */
static void target_of(const tc_runset *set, const tc_figures *f, tc_cli_evidence *ev)
{
    snprintf(ev->target_status, sizeof ev->target_status, "complete");
    for (size_t i = 0; i < set->n; i++) {
        if (strcmp(set->runs[i].status, "complete") != 0)
            snprintf(ev->target_status, sizeof ev->target_status, "%s", set->runs[i].status);
        ev->target_completed += f[i].m.requests.completed;
        ev->target_failed += f[i].m.requests.failed;
    }
}

static int load_profile(const char *path, const tc_lockin *a, tc_cost_profile *p)
{
    char err[1024];
    if (tc_cost_profile_load(path, p, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return TC_EXIT_USAGE;
    }
    if (strcmp(p->currency, a->currency) != 0) {
        tc_cli_error("%s is in %s but %s is in %s: give both in one currency", path, p->currency,
                     a->name, a->currency);
        return TC_EXIT_USAGE;
    }
    return 0;
}

/* The running cost per million tokens of a side: what goes on every month.
 * The purchase (the [hardware] term) is the lock-in model's one-time
 * hardware saving, and adaptation days are its lock-in cost, so neither
 * is counted again here; a cloud rental is running cost. -1 (said) when
 * the cost is not available. */
static int running_cost(const char *path, const tc_cost_profile *p, const tc_cost_measured *m,
                        double *out)
{
    tc_cost_result r;
    if (tc_cost_compute(p, m, &r) != TC_OK || !r.has_cost || !(r.tokens_per_month > 0)) {
        fprintf(stderr,
                "truecost: %s: no cost per token for its run (no completed request, or no power "
                "measured and no [power] busy_watts; see 'truecost cost RUN --profile %s'): no "
                "running saving\n",
                path, path);
        return -1;
    }
    double monthly = r.per_month - (r.is_cloud ? 0 : r.hardware.value);
    if (!p->is_cloud && p->adaptation_days.valid && p->day_rate.valid) {
        monthly -= p->adaptation_days.value * p->day_rate.value / p->amortize_months.value;
        if (p->adaptation_days.value > 0)
            fprintf(stderr,
                    "truecost: %s: its adaptation_days belong to the lock-in cost; left out of "
                    "the running saving\n",
                    path);
    }
    *out = monthly / r.tokens_per_month * 1e6;
    return 0;
}

/* Loads one side: its throughput and cost inputs, and for the target its
 * status. */
static int load_side(tc_store *st, const char *which, int target, tc_cli_evidence *ev,
                     tc_cost_measured *m)
{
    tc_runset set;
    tc_figures *f = NULL;
    tc_group_stat g;
    int code = tc_cli_runset_find(st, which, &set);
    if (!code)
        code = tc_cli_runset_load(st, &set, &f);
    if (!code) {
        tc_figures_mean_cost_inputs(f, set.n, m, &g);
        for (size_t i = 0; i < set.n; i++)
            ev->simulated |= set.runs[i].simulated;
        if (target)
            target_of(&set, f, ev);
        /* A target that completed nothing is evidence, not an error. */
        if (!target && !(m->output_tokens_per_s > 0)) {
            tc_cli_error("'%s' (the incumbent) has no output throughput (no completed request): "
                         "nothing to compare the alternative with",
                         which);
            code = TC_EXIT_RUNTIME;
        }
    }
    tc_runset_figures_free(f, set.n);
    tc_runset_free(&set);
    return code;
}

/* The running saving per month from each side's cost profile. */
static int running_saving(const tc_cli_evidence_opts *o, const tc_lockin *a,
                          const tc_cost_measured *ma, const tc_cost_measured *mb,
                          tc_cli_evidence *ev, tc_lockin_overrides *ov)
{
    tc_cost_profile pa, pb;
    int code;
    if (!a->tokens_per_month.valid) {
        tc_cli_error("%s: give [horizon] tokens_per_month, so that the cost per token of the "
                     "profiles becomes a saving per month",
                     a->name);
        return TC_EXIT_USAGE;
    }
    if ((code = load_profile(o->profile_a, a, &pa)) || (code = load_profile(o->profile_b, a, &pb)))
        return code;
    if (running_cost(o->profile_a, &pa, ma, &ev->cost_a) < 0 ||
        running_cost(o->profile_b, &pb, mb, &ev->cost_b) < 0)
        return 0;
    ev->has_costs = 1;
    ev->running_saving_per_month = (ev->cost_a - ev->cost_b) * a->tokens_per_month.value / 1e6;
    ov->has_running_saving = 1;
    ov->running_saving_per_month = ev->running_saving_per_month;
    snprintf(ov->running_source, sizeof ov->running_source, "profiles at %.3g tokens/month",
             a->tokens_per_month.value);
    return 0;
}

static int read_runs(tc_store *st, const tc_cli_evidence_opts *o, const tc_lockin *a,
                     tc_cli_evidence *ev, tc_lockin_overrides *ov)
{
    tc_cost_measured ma, mb;
    int code = load_side(st, o->run_a, 0, ev, &ma);
    if (!code)
        code = load_side(st, o->run_b, 1, ev, &mb);
    if (code)
        return code;
    ev->has_runs = 1;
    ev->tps_a = ma.output_tokens_per_s;
    ev->tps_b = mb.output_tokens_per_s;
    ev->ratio = ev->tps_b / ev->tps_a;
    ov->simulated |= ev->simulated;
    if (!(ev->ratio > 0)) {
        fprintf(stderr,
                "truecost: '%s' (the alternative) completed no request: no performance "
                "ratio; the target run and the gap count as not met\n",
                o->run_b);
        return 0;
    }
    ov->has_perf_ratio = 1;
    ov->perf_ratio = ev->ratio;
    snprintf(ov->perf_source, sizeof ov->perf_source, "runs %.35s vs %.35s%s", o->run_a, o->run_b,
             ev->simulated ? " (SIMULATED)" : "");
    return o->profile_a ? running_saving(o, a, &ma, &mb, ev, ov) : 0;
}

/* The longest-measured run that --soak names. */
static int read_soak(tc_store *st, const tc_cli_evidence_opts *o, tc_cli_evidence *ev)
{
    tc_runset set;
    tc_figures *f = NULL;
    int code = tc_cli_runset_find(st, o->soak, &set);
    if (!code)
        code = tc_cli_runset_load(st, &set, &f);
    if (!code) {
        size_t best = 0;
        for (size_t i = 1; i < set.n; i++)
            if (f[i].m.duration_s > f[best].m.duration_s)
                best = i;
        ev->has_soak = 1;
        snprintf(ev->soak_status, sizeof ev->soak_status, "%s", set.runs[best].status);
        ev->soak_hours = f[best].m.has_duration ? f[best].m.duration_s / 3600 : 0;
        ev->soak_measured = f[best].m.requests.measured;
        ev->soak_failed = f[best].m.requests.failed;
        ev->simulated |= set.runs[best].simulated;
    }
    tc_runset_figures_free(f, set.n);
    tc_runset_free(&set);
    return code;
}

int tc_cli_evidence_gather(const tc_cli_evidence_opts *o, const tc_lockin *a, tc_cli_evidence *ev,
                           tc_lockin_overrides *ov)
{
    memset(ev, 0, sizeof *ev);
    int code = 0;
    if (o->gaps_file)
        code = read_gaps(o->gaps_file, ev, ov);
    if (code || (!o->run_a && !o->soak))
        return code;
    tc_store *st; /* opened once for the runs and the soak */
    if ((code = tc_cli_open_store(o->db, TC_STORE_READ, &st)) != 0)
        return code;
    if (o->run_a)
        code = read_runs(st, o, a, ev, ov);
    if (!code && o->soak) {
        code = read_soak(st, o, ev);
        ov->simulated |= ev->simulated;
    }
    tc_store_close(st);
    return code;
}
