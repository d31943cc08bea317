/* A group of repeated runs (`run --repeat K`): each run's headline figures
 * and the spread of throughput over the runs, flagged when its coefficient
 * of variation is over TC_GROUP_CV_LIMIT. */
#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "cli.h"
#include "cli_runset.h"
#include "report/report_json.h"

static json_t *num(const tc_summary *s, double v)
{
    return s->n > 0 && isfinite(v) ? json_real(v) : json_null();
}

/* Labels and names are the user's bytes, maybe not UTF-8, which jansson's
 * "s" refuses (the whole document would be lost): cleaned strings, "o". */
static json_t *run_json(const tc_figures *f)
{
    const tc_run_metrics *m = &f->m;
    return json_pack(
        "{s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:I}", "id", (json_int_t)f->run.id, "label",
        tc_json_string(f->run.label), "status", tc_json_string(f->run.status),
        "output_tokens_per_s", m->has_duration ? json_real(m->output_tokens_per_s) : json_null(),
        "ttft_p50_ms", num(&m->ttft_ms, m->ttft_ms.p50), "itl_p50_ms",
        num(&m->itl_ms, m->itl_ms.p50), "e2e_p50_ms", num(&m->e2e_ms, m->e2e_ms.p50), "completed",
        (json_int_t)m->requests.completed, "failed", (json_int_t)m->requests.failed);
}

static json_t *group_json(const tc_runset *set, const tc_figures *f, const tc_group_stat *g)
{
    json_t *runs = json_array();
    int simulated = 0;
    for (size_t i = 0; i < set->n; i++) {
        json_array_append_new(runs, run_json(&f[i]));
        simulated |= set->runs[i].simulated;
    }
    char lines[TC_FIGURES_MAX_WARNINGS][200];
    int n = tc_figures_quality_warnings("the group", set, f, lines, TC_FIGURES_MAX_WARNINGS);
    json_t *warn = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(warn, tc_json_string(lines[i]));
    return json_pack("{s:o,s:b,s:o,s:{s:I,s:f,s:f,s:f,s:f,s:b},s:o}", "group",
                     tc_json_string(set->name), "simulated", simulated, "runs", runs, "throughput",
                     "runs", (json_int_t)g->n, "mean", g->mean, "stddev", g->stddev, "cv", g->cv,
                     "cv_limit", TC_GROUP_CV_LIMIT, "noisy", g->noisy, "warnings", warn);
}

static void print_ms(const tc_summary *s, double v)
{
    if (s->n > 0)
        printf(" %10.2f", v);
    else
        printf(" %10s", "n/a");
}

static void print_group(const tc_runset *set, const tc_figures *f, const tc_group_stat *g)
{
    int simulated = 0;
    for (size_t i = 0; i < set->n; i++)
        simulated |= set->runs[i].simulated;
    printf("%sGroup '%s': %zu repeated runs of %s\n", simulated ? "SIMULATED " : "", set->name,
           set->n, set->runs[0].model);
    printf("  %8s %-11s %12s %10s %10s %10s %6s\n", "run", "status", "tok/s", "TTFT p50", "ITL p50",
           "E2E p50", "errors");
    for (size_t i = 0; i < set->n; i++) {
        const tc_run_metrics *m = &f[i].m;
        printf("  %8lld %-11s %12.2f", (long long)f[i].run.id, f[i].run.status,
               m->has_duration ? m->output_tokens_per_s : NAN);
        print_ms(&m->ttft_ms, m->ttft_ms.p50);
        print_ms(&m->itl_ms, m->itl_ms.p50);
        print_ms(&m->e2e_ms, m->e2e_ms.p50);
        printf(" %6lld\n", (long long)m->requests.failed);
    }
    char lines[TC_FIGURES_MAX_WARNINGS][200];
    int n = tc_figures_quality_warnings("the group", set, f, lines, TC_FIGURES_MAX_WARNINGS);
    for (int i = 0; i < n; i++)
        printf("WARNING %s\n", lines[i]);
    if (g->n < 2 || !(g->mean > 0)) {
        printf("Throughput over the runs: %s\n",
               g->n < 2 ? "one run: no spread to measure (repeat it with --repeat K)"
                        : "no run completed a request: no throughput");
        return;
    }
    printf("Throughput over the runs: mean %.2f tok/s, stddev %.2f, CV %.2f%%", g->mean, g->stddev,
           g->cv * 100);
    if (g->noisy)
        printf(": NOISY, over %.0f%%: rerun, or look for noise (other load, thermal "
               "throttling, power capping)\n",
               TC_GROUP_CV_LIMIT * 100);
    else
        printf(" (within %.0f%%)\n", TC_GROUP_CV_LIMIT * 100);
}

json_t *tc_cli_group_doc(tc_store *st, const tc_runset *set)
{
    tc_figures *f = NULL;
    tc_cost_measured m;
    tc_group_stat g;
    if (tc_cli_runset_load(st, set, &f))
        return NULL;
    tc_figures_mean_cost_inputs(f, set->n, &m, &g);
    json_t *doc = group_json(set, f, &g);
    tc_runset_figures_free(f, set->n);
    if (!doc)
        tc_cli_error("out of memory");
    return doc;
}

int tc_cli_print_group(tc_store *st, const tc_runset *set, int json)
{
    if (json) {
        char err[256];
        json_t *doc = tc_cli_group_doc(st, set);
        int code = doc && tc_json_dump(stdout, doc, err, sizeof err) == TC_OK ? 0 : TC_EXIT_RUNTIME;
        json_decref(doc);
        return code;
    }
    tc_figures *f = NULL;
    tc_cost_measured m;
    tc_group_stat g;
    int code = tc_cli_runset_load(st, set, &f);
    if (code)
        return code;
    tc_figures_mean_cost_inputs(f, set->n, &m, &g);
    print_group(set, f, &g);
    tc_runset_figures_free(f, set->n);
    return 0;
}
