/* truecost runs / show / export: read stored runs, compute their figures
 * on read (so old runs get today's analysis), print them. */
#include "cli_results.h"
#include "cli_runset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "views/view_stored.h"
#include "views/view_run.h"
#include "views/view_shards.h"
#include "core/tc_outfile.h"
#include "cli.h"
#include "cli_opts.h"
#include "report/report_energy.h"
#include "report/report_export.h"
#include "report/report_group.h"
#include "report/report_json.h"
#include "report/report_run.h"
#include "report/report_sweep.h"
#include "report/report_table.h"
#include "views/view_figures.h"
#include "views/view_sweep.h"

int tc_cli_open_store(const char *db, tc_store_mode mode, tc_store **out)
{
    char path[TC_STORE_PATH_MAX], err[1024];
    *out = NULL;
    if (!db) {
        if (tc_store_default_path(path, sizeof path, err, sizeof err) != TC_OK) {
            tc_cli_error("%s", err);
            return TC_EXIT_RUNTIME;
        }
        db = path;
    }
    if (tc_store_open(db, mode, out, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

/* Loads the run's summary; what could not be read besides its figures is
 * said and left out. 0 or TC_EXIT_RUNTIME (said). */
static int load_view(tc_store *st, const tc_run_info *run, tc_run_view *v)
{
    char err[512];
    if (tc_cli_check(tc_view_run(st, run, v, err, sizeof err), err))
        return TC_EXIT_RUNTIME;
    for (int i = 0; i < v->n_warnings; i++)
        tc_cli_error("%s", v->warnings[i]);
    return 0;
}

/* The run document or the summary table on stdout. */
static int print_view(const tc_run_view *v, int json)
{
    if (json) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "run %lld", (long long)v->f.run.id);
        return tc_cli_emit_json(cmd, tc_report_run_doc(&v->f, v->fingerprint, &v->roof));
    }
    tc_err rc =
        tc_report_run_text(stdout, &v->f, v->fingerprint, &v->roof, getenv("NO_COLOR") == NULL);
    return tc_cli_check(rc, NULL);
}

/* TC_EXIT_CHECK after saying so when more measured requests failed than
 * max_error_rate allows; else 0. */
static int check_errors(const tc_run_metrics *m, double max_error_rate)
{
    double rate = tc_run_metrics_error_rate(m);
    if (rate <= max_error_rate)
        return 0;
    tc_cli_error("%lld of %lld measured requests failed (%.1f%%), above --max-error-rate %.3g",
                 (long long)m->requests.failed, (long long)m->requests.measured, rate * 100,
                 max_error_rate);
    return TC_EXIT_CHECK;
}

/* The schedule-lag warning on stderr, where the table that carries it is
 * not printed (JSON on stdout, or a group's runs). */
static void say_lag(const tc_run_info *run, const tc_run_metrics *m)
{
    char text[400];
    if (tc_report_lag_warning(run, m, text, sizeof text))
        tc_cli_error("run %lld: %s", (long long)run->id, text);
}

int tc_cli_print_run(tc_store *st, const tc_run_info *run, int json, double max_error_rate,
                     const tc_slo *slo)
{
    char err[512];
    if (json == TC_PRINT_NONE) { /* the figures alone, for the check */
        tc_figures f;
        if (tc_cli_check(tc_view_figures(st, run, TC_FIGURES_SUMMARY, &f, err, sizeof err), err))
            return TC_EXIT_RUNTIME;
        say_lag(run, &f.m);
        int code = check_errors(&f.m, max_error_rate);
        tc_figures_free(&f);
        return code;
    }
    tc_run_view v;
    int code = load_view(st, run, &v);
    if (code)
        return code;
    if (slo && tc_cli_check(tc_view_apply_slo(st, run, slo, &v.f.m, err, sizeof err), err)) {
        tc_view_run_free(&v);
        return TC_EXIT_RUNTIME;
    }
    code = print_view(&v, json);
    if (json)
        say_lag(run, &v.f.m);
    if (!code)
        code = check_errors(&v.f.m, max_error_rate);
    tc_view_run_free(&v);
    return code;
}

int tc_cli_print_group(tc_store *st, const tc_runset *set, int json)
{
    tc_figures *f = NULL;
    tc_set_summary s;
    int code = tc_cli_runset_load(st, set, &f);
    if (code)
        return code;
    tc_figures_summarise("the group", set, f, &s);
    if (json)
        code = tc_cli_emit_json("group", tc_report_group_json(set, f, &s));
    else
        code = tc_cli_check(tc_report_group_text(stdout, set, f, &s), NULL);
    tc_runset_figures_free(f, set->n);
    return code;
}

/* ---- shared option parsing ----------------------------------------------- */

typedef struct read_args {
    const char *db, *run, *what, *format, *output, *slo;
    int json, help;
} read_args;

/* Parses the options and at most `positional` arguments. Returns 0 or
 * prints and returns -1. */
static int parse_read(const char *cmd, int argc, char **argv, int positional, read_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_S("db", 0, &a->db),
        TC_OPT_F("json", 0, &a->json),
        TC_OPT_S("what", 0, &a->what),
        TC_OPT_S("format", 0, &a->format),
        TC_OPT_S("output", 'o', &a->output),
        TC_OPT_S("slo", 0, &a->slo),
        TC_OPT_END,
    };
    if (tc_cli_parse(cmd, argc, argv, opts, NULL, &a->help, &a->run, positional, NULL) < 0)
        return -1;
    if (strcmp(cmd, "export") != 0 && (a->what || a->format || a->output)) {
        tc_cli_error("%s: --what, --format and -o belong to 'truecost export'", cmd);
        return -1;
    }
    if (strcmp(cmd, "show") != 0 && a->slo) {
        tc_cli_error("%s: --slo belongs to 'truecost show' (and 'run')", cmd);
        return -1;
    }
    if (strcmp(cmd, "export") == 0 && a->json) {
        tc_cli_error("export: use --format json");
        return -1;
    }
    if (positional && !a->run && !a->help) {
        tc_cli_error("%s: which run? give its id or label (see 'truecost runs')", cmd);
        return -1;
    }
    return 0;
}

/* ---- runs ---------------------------------------------------------------- */

int tc_cmd_runs(int argc, char **argv)
{
    read_args a;
    if (parse_read("runs", argc, argv, 0, &a) < 0)
        return tc_cli_usage_hint("runs");
    if (a.help) {
        tc_cli_help("runs", stdout);
        return 0;
    }
    tc_store *st;
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_figures_list l;
    char err[512];
    code = tc_cli_check(tc_view_figures_list(st, &l, err, sizeof err), err);
    if (!code && a.json)
        code = tc_cli_emit_json("runs", tc_report_runs_json(l.runs, l.mp, l.n));
    else if (!code)
        code = tc_cli_check(tc_report_runs_table(stdout, l.runs, l.mp, l.n, 0), NULL);
    tc_figures_list_free(&l);
    tc_store_close(st);
    return code;
}

/* ---- show ---------------------------------------------------------------- */

/* A sharded group (run --shard) as the one run it is: merged records. */
static int print_shards(tc_store *st, const tc_runset *set, int json)
{
    tc_run_view v;
    char err[512];
    if (tc_cli_check(tc_view_shards(st, set, &v, err, sizeof err), err))
        return TC_EXIT_RUNTIME;
    for (int i = 0; i < v.n_warnings; i++)
        tc_cli_error("%s", v.warnings[i]);
    /* The merged energy is the server box's (remote devices) or none. */
    int remote = 0;
    for (int d = 0; d < v.f.e.n; d++)
        remote |= strcmp(v.f.e.dev[d].dev.backend, "remote") == 0;
    if (!json)
        printf("%zu shards of one workload, merged (group '%s'; energy: %s)\n", set->n, set->name,
               remote ? "the server box's, from --telemetry URL"
                      : "none merged: the shards scraped no --telemetry URL");
    int code = print_view(&v, json);
    tc_view_run_free(&v);
    return code;
}

/* Each point's goodput judged again under slo, as `show RUN --slo` and
 * `report --slo` judge a run: its requests streamed against it. */
static tc_err judge_points(tc_store *st, const tc_runset *set, const tc_slo *slo,
                           tc_sweep_point *pts, char *err, size_t errlen)
{
    for (size_t i = 0; i < set->n; i++) {
        tc_figures f;
        tc_err rc = tc_view_figures(st, &set->runs[i], TC_FIGURES_SUMMARY, &f, err, errlen);
        if (rc == TC_OK)
            rc = tc_view_apply_slo(st, &set->runs[i], slo, &f.m, err, errlen);
        if (rc == TC_OK)
            tc_sweep_point_goodput(&f.m, &pts[i]);
        tc_figures_free(&f);
        if (rc != TC_OK)
            return rc;
    }
    return TC_OK;
}

/* A stored sweep: its points' table (or document) and knee; with slo,
 * each point's goodput under it. */
static int print_sweep(tc_store *st, const tc_runset *set, const tc_slo *slo, int json)
{
    tc_sweep_point *pts = NULL;
    char err[512], slo_text[TC_SLO_TEXT_MAX];
    if (tc_cli_check(tc_view_sweep(st, set, &pts, err, sizeof err), err))
        return TC_EXIT_RUNTIME;
    if (slo && tc_cli_check(judge_points(st, set, slo, pts, err, sizeof err), err)) {
        free(pts);
        return TC_EXIT_RUNTIME;
    }
    if (slo)
        tc_slo_text(slo, slo_text, sizeof slo_text);
    tc_sweep_view v = {.name = set->name,
                       .slo = slo                   ? slo_text
                              : set->runs[0].slo[0] ? set->runs[0].slo
                                                    : NULL,
                       .points = pts,
                       .n = set->n};
    int code = json ? tc_cli_emit_json("sweep", tc_report_sweep_json(&v))
                    : tc_cli_check(tc_report_sweep_text(stdout, &v), NULL);
    free(pts);
    return code;
}

int tc_cmd_show(int argc, char **argv)
{
    read_args a;
    if (parse_read("show", argc, argv, 1, &a) < 0)
        return tc_cli_usage_hint("show");
    if (a.help) {
        tc_cli_help("show", stdout);
        return 0;
    }
    tc_slo slo;
    char err[512];
    if (a.slo && tc_slo_parse(a.slo, &slo, err, sizeof err) != TC_OK) {
        tc_cli_error("show: %s", err);
        return tc_cli_usage_hint("show");
    }
    tc_store *st;
    tc_runset set = {0};
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (!code)
        code = tc_cli_runset_find(st, a.run, &set); /* not there: 2, as every command */
    int sweep = !code && set.is_group && strcmp(set.runs[0].group_kind, "sweep") == 0;
    if (!code && set.is_group && a.slo && !sweep) {
        tc_cli_error("show: --slo takes one run or a sweep; '%s' is a group of %zu (show each "
                     "run)",
                     a.run, set.n);
        code = TC_EXIT_USAGE;
    } else if (sweep)
        code = print_sweep(st, &set, a.slo ? &slo : NULL, a.json);
    else if (!code && tc_view_is_sharded(&set))
        code = print_shards(st, &set, a.json);
    else if (!code && set.is_group)
        code = tc_cli_print_group(st, &set, a.json);
    else if (!code) {
        int soak = 0; /* a soak: its verdict, windows and outages instead */
        code = a.slo ? 0 : tc_cli_print_soak(st, &set.runs[0], a.json, &soak);
        if (!code && !soak)
            code = tc_cli_print_run(st, &set.runs[0], a.json, 2.0, a.slo ? &slo : NULL);
    }
    tc_runset_free(&set);
    tc_store_close(st);
    return code;
}

/* ---- export -------------------------------------------------------------- */

typedef struct export_job {
    FILE *f;
    tc_store *st;
    const tc_runset *set;
    tc_export_what what;
    tc_export_format fmt;
    char err[512];
} export_job;

/* 0, or TC_EXIT_RUNTIME after saying "export: <why>". */
static int export_said(tc_err rc, const char *err)
{
    if (rc == TC_OK)
        return 0;
    tc_cli_error("export: %s", err);
    return TC_EXIT_RUNTIME;
}

static int export_samples(export_job *j)
{
    const tc_run_info *run = &j->set->runs[0];
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n_devs = 0;
    size_t n = 0;
    tc_err rc = tc_store_load_telemetry(j->st, run->id, &devs, &n_devs, &samples, &n, j->err,
                                        sizeof j->err);
    if (rc == TC_OK)
        rc = tc_report_export_samples(j->f, j->fmt == TC_EXPORT_JSON, run->simulated, devs, n_devs,
                                      samples, n, j->err, sizeof j->err);
    free(devs);
    free(samples);
    return export_said(rc, j->err);
}

/* The summary: the very document `run --json` (or `show GROUP --json`)
 * printed. */
static int export_summary(export_job *j)
{
    int code;
    if (!j->set->is_group) {
        tc_run_view v;
        if ((code = load_view(j->st, &j->set->runs[0], &v)) != 0)
            return code;
        code = export_said(
            tc_report_run_export(j->f, j->fmt, &v.f, v.fingerprint, &v.roof, j->err, sizeof j->err),
            j->err);
        tc_view_run_free(&v);
        return code;
    }
    tc_figures *f = NULL;
    tc_set_summary s;
    if ((code = tc_cli_runset_load(j->st, j->set, &f)) != 0)
        return code;
    tc_figures_summarise("the group", j->set, f, &s);
    code = export_said(tc_report_group_export(j->f, j->fmt, j->set, f, &s, j->err, sizeof j->err),
                       j->err);
    tc_runset_figures_free(f, j->set->n);
    return code;
}

/* Requests or chunks: one run's rows, or a group's runs' rows one after
 * the other under one header, with a run_id column. */
static int export_rows(export_job *j)
{
    size_t rows = 0;
    for (size_t i = 0; i < j->set->n; i++) {
        const tc_run_info *run = &j->set->runs[i];
        tc_req_record *recs;
        size_t n;
        if (tc_cli_check(tc_store_load_requests(j->st, run->id, &recs, &n, j->err, sizeof j->err),
                         j->err))
            return TC_EXIT_RUNTIME;
        tc_err rc =
            j->set->is_group
                ? tc_report_export_part(j->f, j->what, j->fmt, run, recs, n, i == 0,
                                        i + 1 == j->set->n, &rows, j->err, sizeof j->err)
                : tc_report_export(j->f, j->what, j->fmt, run, recs, n, j->err, sizeof j->err);
        tc_store_free_requests(recs, n);
        if (export_said(rc, j->err))
            return TC_EXIT_RUNTIME;
    }
    return 0;
}

/* Checks the --what and --format names; 0 or a usage error (said). */
static int export_kind(const read_args *a, export_job *j, int *samples)
{
    j->what = TC_EXPORT_REQUESTS;
    j->fmt = TC_EXPORT_CSV;
    *samples = a->what && strcmp(a->what, "samples") == 0;
    if (a->what && !*samples && tc_report_export_what_parse(a->what, &j->what) < 0) {
        tc_cli_error("export: --what '%s': expected requests, chunks, summary or samples", a->what);
        return TC_EXIT_USAGE;
    }
    if (a->format && tc_report_export_format_parse(a->format, &j->fmt) < 0) {
        tc_cli_error("export: --format '%s': expected csv or json", a->format);
        return TC_EXIT_USAGE;
    }
    return 0;
}

int tc_cmd_export(int argc, char **argv)
{
    read_args a;
    export_job j = {0};
    int samples;
    if (parse_read("export", argc, argv, 1, &a) < 0)
        return tc_cli_usage_hint("export");
    if (a.help) {
        tc_cli_help("export", stdout);
        return 0;
    }
    if (export_kind(&a, &j, &samples))
        return tc_cli_usage_hint("export");
    tc_runset set = {0};
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &j.st);
    if (!code)
        code = tc_cli_runset_find(j.st, a.run, &set); /* not there: 2, as every command */
    if (!code && set.is_group && samples) {
        tc_cli_error("export: --what samples takes one run; group '%s' has runs %lld to %lld",
                     set.name, (long long)set.runs[0].id, (long long)set.runs[set.n - 1].id);
        code = TC_EXIT_USAGE;
    }
    j.f = stdout;
    j.set = &set;
    tc_outfile out = {0};
    tc_inputs in = {0};
    tc_inputs_add(&in, "--db", j.st ? tc_store_path(j.st) : NULL);
    if (!code && tc_output_check("-o", a.output, &in, j.err, sizeof j.err) != TC_OK) {
        tc_cli_error("export: %s", j.err);
        code = TC_EXIT_USAGE;
    }
    if (!code && a.output) { /* a temporary file, renamed over the target when all is written */
        if (tc_outfile_open(a.output, &out, j.err, sizeof j.err) == TC_OK)
            j.f = out.f;
        else {
            tc_cli_error("export: -o %s", j.err);
            code = TC_EXIT_RUNTIME;
        }
        errno = 0; /* a failed write says why */
    }
    if (!code)
        code = samples                       ? export_samples(&j)
               : j.what == TC_EXPORT_SUMMARY ? export_summary(&j)
                                             : export_rows(&j);
    if (out.f && code)
        tc_outfile_abort(&out);
    else if (out.f)
        code = export_said(tc_outfile_commit(&out, j.err, sizeof j.err), j.err);
    tc_runset_free(&set);
    tc_store_close(j.st);
    return code;
}
