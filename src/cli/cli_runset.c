/* RUN arguments as runs or groups, and the figures of each run. */
#include "cli_runset.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

int tc_cli_runset_find(tc_store *st, const char *which, tc_cli_runset *out)
{
    char err[512];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", which ? which : "");
    int all_digits = which && which[0] && strspn(which, "0123456789") == strlen(which);
    if (!all_digits) {
        if (tc_store_find_group(st, which, &out->runs, &out->n, err, sizeof err) != TC_OK) {
            tc_cli_error("%s", err);
            return TC_EXIT_RUNTIME;
        }
        if (out->n > 0) {
            out->is_group = 1;
            return 0;
        }
    }
    out->runs = malloc(sizeof *out->runs);
    if (!out->runs) {
        tc_cli_error("out of memory");
        return TC_EXIT_RUNTIME;
    }
    if (tc_store_find_run(st, which, out->runs, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        tc_cli_runset_free(out);
        return TC_EXIT_RUNTIME;
    }
    out->n = 1;
    return 0;
}

void tc_cli_runset_free(tc_cli_runset *s)
{
    if (!s)
        return;
    free(s->runs);
    memset(s, 0, sizeof *s);
}

void tc_cli_cost_measured(const tc_run_metrics *m, const tc_run_energy *e, tc_cost_measured *out)
{
    memset(out, 0, sizeof *out);
    out->output_tokens_per_s = m->has_duration ? m->output_tokens_per_s : 0;
    out->has_power = e->n > 0;
    out->has_idle = e->n > 0;
    for (int i = 0; i < e->n; i++) {
        out->has_power = out->has_power && e->dev[i].load.has_power;
        out->has_idle = out->has_idle && e->dev[i].has_idle;
        out->busy_watts += e->dev[i].load.avg_power_w;
        out->idle_watts += e->dev[i].idle_power_w;
    }
    out->j_per_token = e->has_total ? e->j_per_token : 0;
}

int tc_cli_figures_load(tc_store *st, const tc_run_info *run, tc_cli_figures *out)
{
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n_devs = 0, code = TC_EXIT_RUNTIME;
    size_t n_samples = 0;
    char err[512];
    memset(out, 0, sizeof *out);
    out->run = *run;
    if (tc_store_load_requests(st, run->id, &out->recs, &out->n_recs, err, sizeof err) != TC_OK ||
        tc_store_load_telemetry(st, run->id, &devs, &n_devs, &samples, &n_samples, err,
                                sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        goto out;
    }
    if (tc_run_metrics_compute(run, out->recs, out->n_recs, &out->m) != TC_OK ||
        tc_run_energy_compute(devs, n_devs, samples, n_samples, out->recs, out->n_recs,
                              out->m.output_tokens, &out->e) != TC_OK) {
        tc_cli_error("run %lld: out of memory computing its figures", (long long)run->id);
        goto out;
    }
    tc_cli_cost_measured(&out->m, &out->e, &out->cost_in);
    code = 0;
out:
    free(devs);
    free(samples);
    if (code)
        tc_cli_figures_free(out);
    return code;
}

void tc_cli_figures_free(tc_cli_figures *f)
{
    if (!f)
        return;
    tc_run_energy_free(&f->e);
    tc_run_metrics_free(&f->m);
    tc_store_free_requests(f->recs, f->n_recs);
    memset(f, 0, sizeof *f);
}

int tc_cli_runset_load(tc_store *st, const tc_cli_runset *s, tc_cli_figures **f)
{
    *f = calloc(s->n ? s->n : 1, sizeof **f);
    if (!*f) {
        tc_cli_error("out of memory");
        return TC_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < s->n; i++) {
        int code = tc_cli_figures_load(st, &s->runs[i], &(*f)[i]);
        if (code) {
            tc_cli_runset_figures_free(*f, i);
            *f = NULL;
            return code;
        }
    }
    return 0;
}

void tc_cli_runset_figures_free(tc_cli_figures *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        tc_cli_figures_free(&f[i]);
    free(f);
}

void tc_cli_mean_cost_inputs(const tc_cli_figures *f, size_t n, tc_cost_measured *out,
                             tc_group_stat *tps)
{
    memset(out, 0, sizeof *out);
    out->has_power = out->has_idle = n > 0;
    size_t with_j = 0;
    double *v = calloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const tc_cost_measured *r = &f[i].cost_in;
        out->has_power = out->has_power && r->has_power;
        out->has_idle = out->has_idle && r->has_idle;
        out->busy_watts += r->busy_watts / (double)n;
        out->idle_watts += r->idle_watts / (double)n;
        out->j_per_token += r->j_per_token / (double)n;
        with_j += r->j_per_token > 0;
        if (v)
            v[i] = r->output_tokens_per_s;
    }
    if (with_j != n)
        out->j_per_token = 0;
    tc_group_stat_compute(v, v ? n : 0, tps);
    out->output_tokens_per_s = tps->mean;
    free(v);
}

int tc_cli_quality_warnings(const char *who, const tc_cli_runset *set, const tc_cli_figures *f,
                            char lines[][200], int max)
{
    int n = 0;
    int64_t measured = 0, failed = 0;
    for (size_t i = 0; i < set->n; i++) {
        if (strcmp(set->runs[i].status, "complete") != 0 && n < max)
            snprintf(lines[n++], 200, "%s: run %lld is %s: its figures are partial", who,
                     (long long)set->runs[i].id, set->runs[i].status);
        measured += f[i].m.requests.measured;
        failed += f[i].m.requests.failed;
    }
    if (failed > 0 && n < max)
        snprintf(lines[n++], 200,
                 "%s: %lld of %lld measured requests failed (%.1f%%): the figures are of the "
                 "completed ones",
                 who, (long long)failed, (long long)measured,
                 100.0 * (double)failed / (double)measured);
    return n;
}
