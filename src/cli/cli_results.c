/* truecost runs / show / export: read stored runs, compute their figures
 * on read (so old runs get today's analysis), print them. */
#include "cli_results.h"
#include "cli_roofline.h"
#include "cli_runset.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_energy.h"
#include "analysis/run_metrics.h"
#include "cli.h"
#include "report/report_export.h"
#include "report/report_energy.h"
#include "report/report_json.h"
#include "report/report_table.h"

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

/* The run's stored environment fingerprint, parsed; JSON null when none. */
static json_t *environment_of(tc_store *st, const tc_run_info *run)
{
    json_t *fp;
    char err[512];
    if (tc_figures_fingerprint(st, run->id, &fp, err, sizeof err) != TC_OK)
        tc_cli_error("%s", err);
    return fp;
}

static const char *str_at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    return json_is_string(v) ? json_string_value(v) : "n/a";
}

/* One or two lines of the environment under the summary table. */
static void print_environment(json_t *fp)
{
    if (!json_is_object(fp)) {
        printf("%-14s%s\n", "environment", "not recorded");
        return;
    }
    printf("%-14s%s, kernel %s, %s; %s\n", "environment", str_at(fp, "os", "name"),
           str_at(fp, "os", "kernel"), str_at(fp, "os", "virtualisation"),
           str_at(fp, "cpu", "model"));
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(fp, "gpus"), i, g)
    {
        printf("              GPU %zu: %s, driver %s, %s\n", i, str_at(g, "name", NULL),
               str_at(g, "driver", NULL), str_at(g, "runtime", NULL));
    }
    json_t *srv = json_object_get(fp, "server");
    if (json_is_object(srv))
        printf("              server %s %s; model %s %s\n", str_at(srv, "kind", NULL),
               str_at(srv, "version", NULL), str_at(srv, "model", "name"),
               str_at(srv, "model", "quantization_level"));
}

/* The bandwidth bound of the run at its median single-stream decode, from
 * its parsed fingerprint `fp`. A table that cannot be loaded is said and
 * leaves no bound (missing GPU: shown as nothing). */
static void roofline_of(const tc_run_metrics *m, const tc_run_energy *e, json_t *fp,
                        tc_roofline_result *out)
{
    tc_roofline_table t = {0};
    memset(out, 0, sizeof *out);
    out->missing = TC_ROOF_NEED_GPU;
    if (tc_cli_roofline_table_load(NULL, &t) == 0)
        tc_cli_roofline_brief(&t, tc_cli_first_gpu(e), fp, m->decode_tps.n ? m->decode_tps.p50 : 0,
                              out);
    tc_roofline_table_free(&t);
}

/* The run document of `run --json`, `show --json` and `export --what
 * summary`: the figures, the energy, the bandwidth bound and the
 * environment (fp, borrowed). New reference, or NULL. */
static json_t *document_of(const tc_run_info *run, const tc_run_metrics *m, const tc_run_energy *e,
                           json_t *fp)
{
    tc_roofline_result roof;
    roofline_of(m, e, fp, &roof);
    json_t *doc = tc_report_run_json(run, m);
    if (doc) {
        json_object_set_new(doc, "energy", tc_report_energy_json(e));
        json_object_set_new(doc, "roofline", tc_cli_roofline_brief_json(&roof, run->concurrency));
        json_object_set(doc, "environment", fp);
    }
    return doc;
}

static json_t *run_document(tc_store *st, const tc_run_info *run)
{
    tc_figures f;
    char err[512];
    if (tc_figures_load(st, run, &f, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return NULL;
    }
    json_t *fp = environment_of(st, run);
    json_t *doc = document_of(run, &f.m, &f.e, fp);
    json_decref(fp);
    tc_figures_free(&f);
    return doc;
}

int tc_cli_print_run(tc_store *st, const tc_run_info *run, int json, double max_error_rate)
{
    tc_figures f;
    char err[512];
    if (tc_figures_load(st, run, &f, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return TC_EXIT_RUNTIME;
    }
    const tc_run_metrics *m = &f.m;
    const tc_run_energy *e = &f.e;
    int code = 0;
    if (json == TC_PRINT_NONE) {
        /* nothing to print */
    } else if (json) {
        json_t *fp = environment_of(st, run);
        json_t *doc = document_of(run, m, e, fp);
        json_decref(fp);
        if (!doc || tc_json_dump(stdout, doc, err, sizeof err) != TC_OK)
            code = TC_EXIT_RUNTIME;
        json_decref(doc);
    } else if (tc_report_table(stdout, run, m, getenv("NO_COLOR") == NULL) != TC_OK) {
        code = TC_EXIT_RUNTIME;
    } else {
        json_t *fp = environment_of(st, run);
        tc_roofline_result roof;
        roofline_of(m, e, fp, &roof);
        tc_report_energy_table(stdout, e);
        tc_cli_roofline_brief_print(stdout, &roof, run->concurrency);
        print_environment(fp);
        json_decref(fp);
    }
    double rate =
        m->requests.measured ? (double)m->requests.failed / (double)m->requests.measured : 0;
    if (!code && rate > max_error_rate) {
        tc_cli_error("%lld of %lld measured requests failed (%.1f%%), above --max-error-rate "
                     "%.3g",
                     (long long)m->requests.failed, (long long)m->requests.measured, rate * 100,
                     max_error_rate);
        code = TC_EXIT_CHECK;
    }
    tc_figures_free(&f);
    return code;
}

/* ---- shared option parsing ----------------------------------------------- */

typedef struct read_args {
    const char *db, *run, *what, *format, *output;
    int json, help;
} read_args;

enum { OPT_DB = 256, OPT_JSON, OPT_WHAT, OPT_FORMAT };

static const struct option read_options[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"json", no_argument, NULL, OPT_JSON},
    {"what", required_argument, NULL, OPT_WHAT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Parses the options `allowed` (a string of the option codes' names) and
 * at most `positional` arguments. Returns 0 or prints and returns -1. */
static int parse_read(const char *cmd, int argc, char **argv, int positional, read_args *a)
{
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "o:h", read_options, NULL)) != -1) {
        switch (opt) {
        case OPT_DB:
            a->db = optarg;
            break;
        case OPT_JSON:
            a->json = 1;
            break;
        case OPT_WHAT:
            a->what = optarg;
            break;
        case OPT_FORMAT:
            a->format = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'h':
            a->help = 1;
            break;
        default:
            tc_cli_error("%s: unknown or incomplete option '%s'", cmd, argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc && positional)
        a->run = argv[optind++];
    if (optind < argc) {
        tc_cli_error("%s: unexpected argument '%s'", cmd, argv[optind]);
        return -1;
    }
    if (strcmp(cmd, "export") != 0 && (a->what || a->format || a->output)) {
        tc_cli_error("%s: --what, --format and -o belong to 'truecost export'", cmd);
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

void tc_cmd_runs_help(FILE *out)
{
    fputs("Usage: truecost runs [--json] [--db PATH]\n"
          "\n"
          "List the stored runs, newest first: id, label, date, endpoint, model, status,\n"
          "requests, output tokens/s and TTFT p50.\n",
          out);
}

int tc_cmd_runs(int argc, char **argv)
{
    read_args a;
    if (parse_read("runs", argc, argv, 0, &a) < 0)
        return tc_cli_usage_hint("runs");
    if (a.help) {
        tc_cmd_runs_help(stdout);
        return 0;
    }
    tc_store *st;
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_run_info *runs = NULL;
    size_t n = 0;
    char err[512];
    if (tc_store_list_runs(st, &runs, &n, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        tc_store_close(st);
        return TC_EXIT_RUNTIME;
    }
    tc_run_metrics *m = calloc(n ? n : 1, sizeof *m);
    const tc_run_metrics **mp = calloc(n ? n : 1, sizeof *mp);
    for (size_t i = 0; m && mp && i < n && !code; i++) {
        if (tc_figures_metrics(st, &runs[i], &m[i], err, sizeof err) != TC_OK) {
            tc_cli_error("%s", err);
            code = TC_EXIT_RUNTIME;
        } else {
            mp[i] = &m[i];
        }
    }
    if (!m || !mp) {
        tc_cli_error("out of memory");
        code = TC_EXIT_RUNTIME;
    }
    if (!code && a.json) {
        json_t *doc = tc_report_runs_json(runs, mp, n);
        if (!doc || tc_json_dump(stdout, doc, err, sizeof err) != TC_OK)
            code = TC_EXIT_RUNTIME;
        json_decref(doc);
    } else if (!code && tc_report_runs_table(stdout, runs, mp, n, 0) != TC_OK) {
        code = TC_EXIT_RUNTIME;
    }
    for (size_t i = 0; m && mp && i < n; i++)
        if (mp[i])
            tc_run_metrics_free(&m[i]);
    free(m);
    free(mp);
    free(runs);
    tc_store_close(st);
    return code;
}

/* ---- show ---------------------------------------------------------------- */

void tc_cmd_show_help(FILE *out)
{
    fputs("Usage: truecost show RUN [--json] [--db PATH]\n"
          "\n"
          "Print a stored run's summary (RUN is its id or label; a label names the newest\n"
          "run with it). --json prints the same document as 'truecost run --json'.\n"
          "RUN may name a group of repeated runs ('run --repeat K'): then each run's\n"
          "headline figures and the throughput spread over the runs, flagged when its\n"
          "coefficient of variation is over 3%.\n",
          out);
}

int tc_cmd_show(int argc, char **argv)
{
    read_args a;
    if (parse_read("show", argc, argv, 1, &a) < 0)
        return tc_cli_usage_hint("show");
    if (a.help) {
        tc_cmd_show_help(stdout);
        return 0;
    }
    tc_store *st;
    tc_runset set = {0};
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (!code && tc_cli_runset_find(st, a.run, &set) != 0)
        code = TC_EXIT_USAGE; /* show's contract: a run that is not there is a usage error */
    if (!code && set.is_group)
        code = tc_cli_print_group(st, &set, a.json);
    else if (!code)
        code = tc_cli_print_run(st, &set.runs[0], a.json, 2.0);
    tc_runset_free(&set);
    tc_store_close(st);
    return code;
}

/* ---- export -------------------------------------------------------------- */

void tc_cmd_export_help(FILE *out)
{
    fputs("Usage: truecost export RUN [--what requests|chunks|summary|samples]\n"
          "                       [--format csv|json] [-o FILE] [--db PATH]\n"
          "\n"
          "Write a stored run's raw data: one row per request (default), one row per\n"
          "chunk that carried text (its time since the send, the gap before it, and its\n"
          "request's warmup and error: ITL uses warmup false, error ok), the summary,\n"
          "or the hardware telemetry samples (one row per device and sample; empty\n"
          "where a sensor gave nothing). CSV (default) or JSON, to stdout or FILE.\n"
          "RUN may name a group ('run --repeat'): requests and chunks of all its runs\n"
          "under one header with a first column run_id; summary is the group's\n"
          "document ('show GROUP --json'); samples take one run at a time.\n",
          out);
}

static int export_samples(FILE *f, tc_store *st, const tc_run_info *run, tc_export_format fmt)
{
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n_devs = 0;
    size_t n = 0;
    char err[512];
    int code = 0;
    if (tc_store_load_telemetry(st, run->id, &devs, &n_devs, &samples, &n, err, sizeof err) !=
            TC_OK ||
        tc_report_export_samples(f, fmt == TC_EXPORT_JSON, run->simulated, devs, n_devs, samples, n,
                                 err, sizeof err) != TC_OK) {
        tc_cli_error("export: %s", err);
        code = TC_EXIT_RUNTIME;
    }
    free(devs);
    free(samples);
    return code;
}

static int export_to(FILE *f, tc_store *st, const tc_run_info *run, tc_export_what what,
                     tc_export_format fmt)
{
    if (what == TC_EXPORT_SUMMARY) { /* the very document run --json printed */
        char err[512];
        json_t *doc = run_document(st, run);
        int code = doc ? 0 : TC_EXIT_RUNTIME;
        if (doc && tc_report_export_doc(f, fmt, doc, err, sizeof err) != TC_OK) {
            tc_cli_error("export: %s", err);
            code = TC_EXIT_RUNTIME;
        }
        json_decref(doc);
        return code;
    }
    tc_req_record *recs;
    size_t n;
    char err[512];
    if (tc_store_load_requests(st, run->id, &recs, &n, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return TC_EXIT_RUNTIME;
    }
    int code = 0;
    if (tc_report_export(f, what, fmt, run, recs, n, err, sizeof err) != TC_OK) {
        tc_cli_error("export: %s", err);
        code = TC_EXIT_RUNTIME;
    }
    tc_store_free_requests(recs, n);
    return code;
}

/* A group: its document for the summary; its runs' rows one after the
 * other under one header, with a run_id column, for requests and chunks. */
static int export_group(FILE *f, tc_store *st, const tc_runset *set, tc_export_what what,
                        tc_export_format fmt)
{
    char err[512];
    if (what == TC_EXPORT_SUMMARY) {
        json_t *doc = tc_cli_group_doc(st, set);
        int code = doc && tc_report_export_doc(f, fmt, doc, err, sizeof err) == TC_OK
                       ? 0
                       : TC_EXIT_RUNTIME;
        if (doc && code)
            tc_cli_error("export: %s", err);
        json_decref(doc);
        return code;
    }
    size_t rows = 0;
    for (size_t i = 0; i < set->n; i++) {
        tc_req_record *recs;
        size_t n;
        if (tc_store_load_requests(st, set->runs[i].id, &recs, &n, err, sizeof err) != TC_OK) {
            tc_cli_error("%s", err);
            return TC_EXIT_RUNTIME;
        }
        tc_err e = tc_report_export_part(f, what, fmt, &set->runs[i], recs, n, i == 0,
                                         i + 1 == set->n, &rows, err, sizeof err);
        tc_store_free_requests(recs, n);
        if (e != TC_OK) {
            tc_cli_error("export: %s", err);
            return TC_EXIT_RUNTIME;
        }
    }
    return 0;
}

int tc_cmd_export(int argc, char **argv)
{
    read_args a;
    if (parse_read("export", argc, argv, 1, &a) < 0)
        return tc_cli_usage_hint("export");
    if (a.help) {
        tc_cmd_export_help(stdout);
        return 0;
    }
    tc_export_what what = TC_EXPORT_REQUESTS;
    tc_export_format fmt = TC_EXPORT_CSV;
    int samples = a.what && strcmp(a.what, "samples") == 0;
    if (a.what && !samples && tc_report_export_what_parse(a.what, &what) < 0) {
        tc_cli_error("export: --what '%s': expected requests, chunks, summary or samples", a.what);
        return tc_cli_usage_hint("export");
    }
    if (a.format && tc_report_export_format_parse(a.format, &fmt) < 0) {
        tc_cli_error("export: --format '%s': expected csv or json", a.format);
        return tc_cli_usage_hint("export");
    }
    tc_store *st;
    tc_runset set = {0};
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (!code && tc_cli_runset_find(st, a.run, &set) != 0)
        code = TC_EXIT_USAGE; /* as show: a run that is not there is a usage error */
    if (!code && set.is_group && samples) {
        tc_cli_error("export: --what samples takes one run; group '%s' has runs %lld to %lld",
                     set.name, (long long)set.runs[0].id, (long long)set.runs[set.n - 1].id);
        code = TC_EXIT_USAGE;
    }
    FILE *f = stdout;
    if (!code && a.output && !(f = fopen(a.output, "w"))) {
        tc_cli_error("export: -o %s: cannot write: %s", a.output, strerror(errno));
        code = TC_EXIT_RUNTIME;
    }
    if (!code && set.is_group)
        code = export_group(f, st, &set, what, fmt);
    else if (!code)
        code = samples ? export_samples(f, st, &set.runs[0], fmt)
                       : export_to(f, st, &set.runs[0], what, fmt);
    if (f && f != stdout && fclose(f) != 0 && !code) {
        tc_cli_error("export: -o %s: write failed", a.output);
        code = TC_EXIT_RUNTIME;
    }
    tc_runset_free(&set);
    tc_store_close(st);
    return code;
}
