/* A group of repeated runs: one line per run and the throughput spread. */
#include "report_group.h"

#include <math.h>

#include "core/tc_json.h"
#include "report/report_table.h"

/* A run's throughput is the one its group is priced at: the steady-state
 * window's when it reached one (tc_figures_cost_measured; steady_state
 * false: the whole run's), named so beside `runs`' whole-run figure; the
 * old name `output_tokens_per_s` stays as an alias for one release.
 * Labels and names are the user's bytes, maybe not UTF-8, which jansson's
 * "s" refuses (the whole document would be lost): cleaned strings, "o". */
static json_t *run_json(const tc_figures *f)
{
    const tc_run_metrics *m = &f->m;
    json_t *o =
        json_pack("{s:I,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:I,s:I}", "id", (json_int_t)f->run.id, "label",
                  tc_json_string(f->run.label), "status",
                  tc_json_string(tc_status_name(f->run.status)), "window_output_tokens_per_s",
                  tc_json_num(f->cost_in.output_tokens_per_s > 0, f->cost_in.output_tokens_per_s),
                  "steady_state", f->cost_in.steady, "ttft_p50_ms",
                  tc_json_num(m->ttft_ms.n > 0, m->ttft_ms.p50), "itl_p50_ms",
                  tc_json_num(m->itl_ms.n > 0, m->itl_ms.p50), "e2e_p50_ms",
                  tc_json_num(m->e2e_ms.n > 0, m->e2e_ms.p50), "completed",
                  (json_int_t)m->requests.completed, "failed", (json_int_t)m->requests.failed);
    return tc_json_alias(o, "output_tokens_per_s", "window_output_tokens_per_s");
}

static int simulated_of(const tc_runset *set)
{
    int simulated = 0;
    for (size_t i = 0; i < set->n; i++)
        simulated |= set->runs[i].simulated;
    return simulated;
}

json_t *tc_report_group_json(const tc_runset *set, const tc_figures *f, const tc_set_summary *s)
{
    json_t *runs = json_array(), *warn = json_array();
    for (size_t i = 0; runs && i < set->n; i++)
        json_array_append_new(runs, run_json(&f[i]));
    for (int i = 0; warn && i < s->n_warnings; i++)
        json_array_append_new(warn, tc_json_string(s->warnings[i]));
    const tc_group_stat *g = &s->tps;
    return json_pack("{s:o,s:b,s:o,s:{s:I,s:f,s:f,s:f,s:f,s:b},s:o}", "group",
                     tc_json_string(set->name), "simulated", simulated_of(set), "runs", runs,
                     "throughput", "runs", (json_int_t)g->n, "mean", g->mean, "stddev", g->stddev,
                     "cv", g->cv, "cv_limit", TC_GROUP_CV_LIMIT, "noisy", g->noisy, "warnings",
                     warn);
}

static void print_ms(FILE *out, const tc_summary *s, double v)
{
    if (s->n > 0)
        fprintf(out, " %10.2f", v);
    else
        fprintf(out, " %10s", "n/a");
}

static void spread(FILE *out, const tc_group_stat *g)
{
    if (g->n < 2 || !(g->mean > 0)) {
        fprintf(out, "Window throughput over the runs: %s\n",
                g->n < 2 ? "one run: no spread to measure (repeat it with --repeat K)"
                         : "no run completed a request: no throughput");
        return;
    }
    char m[32], sd[32], cv[32];
    fprintf(out, "Window throughput over the runs: mean %s output tok/s, stddev %s, CV %s%%",
            tc_report_sig(m, sizeof m, g->mean), tc_report_sig(sd, sizeof sd, g->stddev),
            tc_report_sig(cv, sizeof cv, g->cv * 100));
    if (g->noisy)
        fprintf(out,
                ": NOISY, over %.0f%%: rerun, or look for noise (other load, thermal "
                "throttling, power capping)\n",
                TC_GROUP_CV_LIMIT * 100);
    else
        fprintf(out, " (within %.0f%%)\n", TC_GROUP_CV_LIMIT * 100);
}

tc_err tc_report_group_text(FILE *out, const tc_runset *set, const tc_figures *f,
                            const tc_set_summary *s)
{
    fprintf(out, "%sGroup '%s': %zu repeated runs of %s\n", simulated_of(set) ? "SIMULATED " : "",
            set->name, set->n, set->runs[0].model);
    fprintf(out, "  %8s %-11s %12s %10s %10s %10s %6s\n", "run", "status", "win tok/s", "TTFT p50",
            "ITL p50", "E2E p50", "errors");
    for (size_t i = 0; i < set->n; i++) {
        const tc_run_metrics *m = &f[i].m;
        fprintf(out, "  %8lld %-11s %12.2f", (long long)f[i].run.id,
                tc_status_name(f[i].run.status),
                f[i].cost_in.output_tokens_per_s > 0 ? f[i].cost_in.output_tokens_per_s : NAN);
        print_ms(out, &m->ttft_ms, m->ttft_ms.p50);
        print_ms(out, &m->itl_ms, m->itl_ms.p50);
        print_ms(out, &m->e2e_ms, m->e2e_ms.p50);
        fprintf(out, " %6lld\n", (long long)m->requests.failed);
    }
    fputs("  (win tok/s: output tokens/s over each run's steady-state window, as cost and compare\n"
          "  read it; 'truecost runs' lists the whole run's)\n",
          out);
    for (int i = 0; i < s->n_warnings; i++)
        fprintf(out, "WARNING %s\n", s->warnings[i]);
    spread(out, &s->tps);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

tc_err tc_report_group_export(FILE *out, tc_export_format fmt, const tc_runset *set,
                              const tc_figures *f, const tc_set_summary *s, char *err,
                              size_t errlen)
{
    json_t *doc = tc_report_group_json(set, f, s);
    if (!doc)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory building the summary");
    tc_err rc = tc_report_export_doc(out, fmt, doc, err, errlen);
    json_decref(doc);
    return rc;
}
