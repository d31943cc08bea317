/* truecost sweep's work: one stored run per operating point (concurrencies
 * of a closed loop, or rates of an open one), as a group of kind "sweep"; a
 * progress line per point, the table (or document) at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/sweep.h"
#include "app/app.h"
#include "app/app_run.h"
#include "report/report_sweep.h"
#include "views/view_figures.h"

#define MAX_POINTS TC_MEASURE_SWEEP_MAX
#define DEFAULT_AUTO_POINTS 8

typedef tc_measure_sweep_args sweep_args;

/* The sweep's name: --label, else sweep-YYYYMMDD-HHMMSS; refused when a
 * group of that name exists. */
static int name_sweep(run_plan *p, const run_args *a)
{
    if (a->label)
        snprintf(p->group, sizeof p->group, "%s", a->label);
    else {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(p->group, sizeof p->group, "sweep-%Y%m%d-%H%M%S", &tm);
    }
    tc_run_info *runs = NULL;
    size_t n = 0;
    char err[512];
    tc_run_info one;
    if (tc_store_find_group(p->store, p->group, &runs, &n, err, sizeof err) != TC_OK) {
        tc_app_error("sweep: %s", err);
        return TC_EXIT_RUNTIME;
    }
    free(runs);
    if (n == 0 && tc_store_find_run(p->store, p->group, &one, err, sizeof err) == TC_OK)
        n = 1;
    if (n > 0) {
        tc_app_error("sweep: '%s' already names %zu stored run(s); choose another --label",
                     p->group, n);
        return TC_EXIT_USAGE;
    }
    return 0;
}

/* One point: the loop set, measured, stored, read back. */
static int one_point(run_plan *p, run_args *a, const sweep_args *s, int by_rate, double value,
                     tc_sweep_point *out)
{
    a->rate = by_rate ? value : 0;
    a->arrival_kind = by_rate ? s->arrival_kind : TC_ARRIVAL_CLOSED;
    a->burstiness = by_rate && s->arrival_kind == TC_ARRIVAL_GAMMA ? s->burstiness : 0;
    a->concurrency = by_rate ? s->open_ceiling : (long long)value;
    p->has_last = 0;
    int code = tc_app_run_measure(p);
    if (!p->has_last) /* nothing stored: the sweep cannot go on */
        return code ? code : TC_EXIT_RUNTIME;
    if (p->group[0])
        p->group_runs_before++;
    tc_figures f;
    char err[512];
    if (tc_view_figures(p->store, &p->last, TC_FIGURES_SUMMARY, &f, err, sizeof err) != TC_OK) {
        tc_app_error("sweep: %s", err);
        return TC_EXIT_RUNTIME;
    }
    tc_sweep_point_of(&f, out);
    tc_figures_free(&f);
    return code;
}

typedef struct sweep_state {
    tc_sweep_point pts[MAX_POINTS + 2];
    size_t n;
    const char *stopped;
} sweep_state;

/* GuideLLM's auto: a synchronous run, a run at maximum throughput, then
 * rates evenly spaced between their request rates. The two probes are
 * stored as runs of their own ("NAME:synchronous", "NAME:throughput"),
 * not as points of the sweep, whose points are all rates. */
static int auto_rates(run_plan *p, run_args *a, sweep_args *s, sweep_state *st)
{
    long long cap = a->max_concurrency ? a->max_concurrency : 64;
    char group[sizeof p->group], sync_label[160], max_label[160];
    const char *label = a->label;
    snprintf(group, sizeof group, "%s", p->group);
    snprintf(sync_label, sizeof sync_label, "%s:synchronous", group);
    snprintf(max_label, sizeof max_label, "%s:throughput", group);
    p->group[0] = '\0';
    p->group_kind = NULL;
    a->label = sync_label;
    int code = one_point(p, a, s, 0, 1, &st->pts[0]);
    a->label = max_label;
    if (code < TC_EXIT_SIGINT && code != TC_EXIT_RUNTIME)
        code = one_point(p, a, s, 0, (double)cap, &st->pts[1]);
    a->label = label;
    snprintf(p->group, sizeof p->group, "%s", group);
    p->group_kind = "sweep";
    if (!p->has_last || code >= TC_EXIT_SIGINT || code == TC_EXIT_RUNTIME)
        return code ? code : TC_EXIT_RUNTIME;
    if (!a->json)
        for (int i = 0; i < 2; i++)
            tc_report_sweep_progress(stderr, (size_t)i, &st->pts[i]);
    int want = s->points ? (int)s->points : DEFAULT_AUTO_POINTS;
    s->n = tc_sweep_rates_between(st->pts[0].requests_per_s, st->pts[1].requests_per_s, want,
                                  s->values);
    if (s->n == 0)
        tc_app_error("sweep: --rates auto: the throughput point (%.3g requests/s) is no faster "
                     "than the synchronous one (%.3g): nothing to sweep between them",
                     st->pts[1].requests_per_s, st->pts[0].requests_per_s);
    memset(st->pts, 0, 2 * sizeof st->pts[0]);
    return s->n ? 0 : TC_EXIT_RUNTIME;
}

static int sweep_points(run_plan *p, run_args *a, sweep_args *s, sweep_state *st)
{
    int worst = 0;
    for (int i = 0; i < s->n; i++) {
        int code = one_point(p, a, s, s->by_rate, s->values[i], &st->pts[st->n]);
        if (p->has_last && code >= TC_EXIT_SIGINT) { /* the cut point, marked in the table */
            st->n++;
            return code;
        }
        if (!p->has_last || code >= TC_EXIT_SIGINT || code == TC_EXIT_RUNTIME)
            return code ? code : TC_EXIT_RUNTIME;
        if (code > worst && code != TC_EXIT_CHECK) /* a failing point stops the sweep, below */
            worst = code;
        if (!a->json)
            tc_report_sweep_progress(stderr, st->n, &st->pts[st->n]);
        st->n++;
        tc_sweep_stop why = tc_sweep_should_stop(st->pts, st->n);
        if (why != TC_SWEEP_GO && i + 1 < s->n) {
            st->stopped = tc_sweep_stop_text(why);
            fprintf(stderr, "truecost: sweep: stopped going up: %s\n", st->stopped);
            break;
        }
    }
    return worst;
}

static int print_sweep(const run_plan *p, const run_args *a, const sweep_state *st)
{
    tc_sweep_view v = {.name = p->group,
                       .slo = a->slo[0] ? a->slo : NULL,
                       .stopped = st->stopped,
                       .points = st->pts,
                       .n = st->n};
    if (a->json)
        return tc_app_emit_json("sweep", tc_report_sweep_json(&v));
    return tc_app_check(tc_report_sweep_text(stdout, &v), NULL);
}

int tc_app_sweep(tc_measure_args *a, tc_measure_sweep_args *s)
{
    a->max_concurrency = s->max_concurrency;
    a->max_error_rate = 1; /* a point's errors stop the sweep, they do not end it */
    run_plan p = {.quiet = 1, .group_kind = "sweep", .gpus = (int)s->gpus};
    /* Files for the most connections any point opens: an open loop's
     * ceiling (run's), or the highest concurrency. */
    a->rate = s->by_rate ? 1 : 0;
    a->concurrency = s->by_rate ? 0 : (long long)s->values[s->n - 1];
    int code = tc_app_run_open(a, &p);
    s->open_ceiling = a->concurrency;
    if (!code)
        code = name_sweep(&p, a);
    sweep_state *st = calloc(1, sizeof *st);
    if (!st)
        code = TC_EXIT_RUNTIME;
    if (!code && s->auto_rates)
        code = auto_rates(&p, a, s, st);
    if (!code)
        code = sweep_points(&p, a, s, st);
    if (st && st->n && code != TC_EXIT_RUNTIME) { /* the table so far on Ctrl-C too */
        int c = print_sweep(&p, a, st);
        if (!code)
            code = c;
    }
    free(st);
    tc_app_run_close(&p, code);
    return code;
}
