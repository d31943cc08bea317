/* truecost gaps: reads an operator inventory and a backend support list,
 * prints the gap table (status, risk class, share of time, alternative)
 * and T_op, the person-days range that `truecost lockin --gaps` takes. */
#include "cli_gaps.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report/report_json.h"

#define NOTE                                                                                       \
    "the support list is yours to check against your versions of the driver, ROCm or CUDA, "       \
    "PyTorch and the kernel libraries; the lists shipped in examples/ are examples, not facts"

#define T_OP_RULE                                                                                  \
    "person-days per operator: missing 1..2..3, fallback 0.25..0.5..1, unknown 0..1..3 (native "   \
    "or missing until checked), native 0; summed"

typedef struct gaps_args {
    const char *ops, *support, *risks, *dtype;
    int json, help;
} gaps_args;

void tc_cmd_gaps_help(FILE *out)
{
    fputs("Usage: truecost gaps --ops FILE --support FILE [--risk-patterns FILE]\n"
          "                     [--dtype D] [--json]\n"
          "\n"
          "The operator gap table: each operator of the model with its status on the\n"
          "target backend (native, fallback, missing, or unknown when the support list\n"
          "has no row), its risk class, its share of the model's time and the suggested\n"
          "alternative; the time share by status; and T_op, the person-days to replace\n"
          "and verify the gaps (missing 1-3 days each, fallback 0.25-1, unknown 0-3),\n"
          "as a low/mode/high range that 'truecost lockin --gaps FILE' reads from the\n"
          "--json output.\n"
          "\n"
          "  --ops FILE            the operator inventory: PyTorch's profiler table\n"
          "                        (print(prof.key_averages().table())), a CSV export of\n"
          "                        key_averages (name, self_cuda_time_total, count), or a\n"
          "                        CSV op,dtype,count or op,dtype,share\n"
          "  --support FILE        the backend's support list: CSV\n"
          "                        op,dtype,status,alternative,notes (status native,\n"
          "                        fallback or missing; dtype * for any)\n"
          "  --risk-patterns FILE  CSV pattern,class[,category], checked before the\n"
          "                        built-in classes (class low, medium, medium-high, high)\n"
          "  --dtype D             the dtype of operators whose file gives none (the\n"
          "                        profiler does not say); default unknown\n"
          "  --json                the table as JSON\n"
          "\n"
          "The support lists in examples/ are examples: check every row against your\n"
          "driver, ROCm/CUDA, PyTorch and library versions.\n"
          "\n"
          "Exit status: 0 done, 1 usage or a bad file (the message names FILE:LINE),\n"
          "2 a file cannot be read.\n",
          out);
}

enum { OPT_OPS = 256, OPT_SUPPORT, OPT_RISKS, OPT_DTYPE, OPT_JSON };

static const struct option options[] = {
    {"ops", required_argument, NULL, OPT_OPS},
    {"support", required_argument, NULL, OPT_SUPPORT},
    {"risk-patterns", required_argument, NULL, OPT_RISKS},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_args(int argc, char **argv, gaps_args *a)
{
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (opt == OPT_OPS)
            a->ops = optarg;
        else if (opt == OPT_SUPPORT)
            a->support = optarg;
        else if (opt == OPT_RISKS)
            a->risks = optarg;
        else if (opt == OPT_DTYPE)
            a->dtype = optarg;
        else if (opt == OPT_JSON)
            a->json = 1;
        else if (opt == 'h')
            a->help = 1;
        else {
            tc_cli_error("gaps: unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        tc_cli_error("gaps: unexpected argument '%s' (give files with --ops and --support)",
                     argv[optind]);
        return -1;
    }
    if (a->help)
        return 0;
    if (!a->ops || !a->support) {
        tc_cli_error("gaps: --ops FILE and --support FILE are required (examples in examples/)");
        return -1;
    }
    if (a->dtype && (!a->dtype[0] || strlen(a->dtype) > 32)) {
        tc_cli_error("gaps: --dtype: '%s' is not a dtype (expected e.g. fp16, bf16, int8)",
                     a->dtype);
        return -1;
    }
    return 0;
}

/* ---- reading ---- */

typedef struct gaps_input {
    tc_gap_inventory inv;
    tc_gap_support sup;
    tc_gap_risks risks;
} gaps_input;

/* Reads a file; 0, or the exit status after printing why. */
static int slurp(const char *path, char **text, size_t *len)
{
    char err[1024];
    tc_err rc = tc_gaps_read_file(path, text, len, err, sizeof err);
    if (rc == TC_OK)
        return 0;
    tc_cli_error("%s", err);
    return rc == TC_ERR_IO ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
}

/* Reads the file of kind `which` (0 ops, 1 support, 2 risks) into in. */
static int read_one(int which, const char *path, const char *dtype, gaps_input *in)
{
    char *text = NULL, err[1024];
    size_t len = 0;
    int code = slurp(path, &text, &len);
    if (code)
        return code;
    tc_err rc;
    if (which == 0)
        rc = tc_gaps_inventory_parse(path, text, len, dtype, &in->inv, err, sizeof err);
    else if (which == 1)
        rc = tc_gaps_support_parse(path, text, len, &in->sup, err, sizeof err);
    else
        rc = tc_gaps_risks_parse(path, text, len, &in->risks, err, sizeof err);
    free(text);
    if (rc == TC_OK)
        return 0;
    tc_cli_error("%s", err);
    return rc == TC_ERR_NOMEM ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
}

/* ---- warnings ---- */

/* 1 when inventory operator `op` has an entry in the table. */
static int in_table(const tc_gap_table *t, const tc_gap_op *op)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].op == op)
            return 1;
    return 0;
}

#define MAX_WARNINGS 8

/* The caveats of this table, as sentences; returns how many. */
static int warnings(const tc_gap_inventory *inv, const tc_gap_table *t, char out[MAX_WARNINGS][512])
{
    int n = 0;
    size_t unknown = t->count[TC_GAP_UNKNOWN];
    if (unknown) {
        int used = snprintf(out[n], 512,
                            "%zu operator%s not covered by the support list, counted as "
                            "unknown gaps (0..1..3 days each):",
                            unknown, unknown == 1 ? " is" : "s are");
        for (size_t i = 0, shown = 0; i < t->n && used > 0 && used < 400; i++)
            if (t->rows[i].status == TC_GAP_UNKNOWN && shown++ < 8)
                used += snprintf(out[n] + used, 512 - (size_t)used, " %s", t->rows[i].op->name);
        n++;
    }
    if (inv->source == TC_SHARE_COUNT)
        snprintf(out[n++], 512,
                 "shares are call counts, not time: a rare but slow operator weighs less than "
                 "it should (export the profiler table for time shares)");
    if (inv->n_skipped)
        snprintf(out[n++], 512,
                 "%zu profiler row%s left out: kernels, runtime calls and annotations are not "
                 "operators (their time is in 'other' or already in their operator's)",
                 inv->n_skipped, inv->n_skipped == 1 ? " was" : "s were");
    if (t->n_labels) {
        int used = snprintf(out[n], 512,
                            "%zu record_function label%s left out (a name without '::' and "
                            "no self device time, not an operator; a support row naming it "
                            "keeps it):",
                            t->n_labels, t->n_labels == 1 ? " was" : "s were");
        for (size_t i = 0, shown = 0; i < inv->n && used > 0 && used < 400; i++)
            if (inv->ops[i].label && !in_table(t, &inv->ops[i]) && shown++ < 8)
                used += snprintf(out[n] + used, 512 - (size_t)used, " %s", inv->ops[i].name);
        n++;
    }
    if (inv->n_negative_cpu)
        snprintf(out[n++], 512,
                 "%zu negative CPU time%s (a PyTorch <= 2.4 profiler bug) %s taken as 0",
                 inv->n_negative_cpu, inv->n_negative_cpu == 1 ? "" : "s",
                 inv->n_negative_cpu == 1 ? "was" : "were");
    if (t->n_ambiguous)
        snprintf(out[n++], 512,
                 "%zu operator name%s cut by the profiler (\"...\") and several support "
                 "operators start with %s, so %s unknown: print the table with a wider name "
                 "column, e.g. prof.key_averages().table(..., max_name_column_width=120)",
                 t->n_ambiguous, t->n_ambiguous == 1 ? " was" : "s were",
                 t->n_ambiguous == 1 ? "it" : "each",
                 t->n_ambiguous == 1 ? "it stays" : "they stay");
    int unknown_dtype = 0;
    for (size_t i = 0; i < t->n; i++)
        unknown_dtype += t->rows[i].n_candidates > 1;
    if (unknown_dtype)
        snprintf(out[n++], 512,
                 "%d operator%s no dtype: each took the worst status of its rows (give --dtype "
                 "or a dtype column)",
                 unknown_dtype, unknown_dtype == 1 ? " has" : "s have");
    return n;
}

/* ---- JSON ---- */

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? tc_report_json_string(s) : json_null();
}

static json_t *days_json(double low, double mode, double high)
{
    return json_pack("{s:f,s:f,s:f}", "low", low, "mode", mode, "high", high);
}

static json_t *entry_json(const tc_gap_entry *e, tc_gap_share_source source)
{
    const tc_gap_support_row *s = e->support;
    int timed = source == TC_SHARE_DEVICE_TIME || source == TC_SHARE_CPU_TIME;
    return json_pack(
        "{s:o,s:o,s:s,s:s,s:o,s:o,s:s,s:f,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:i,s:o}", "name",
        tc_report_json_string(e->op->name), "dtype", tc_report_json_string(e->op->dtype), "status",
        tc_gaps_status_name(e->status), "risk", tc_gaps_risk_name(e->risk), "risk_category",
        tc_report_json_string(e->risk_category), "risk_pattern", str_or_null(e->risk_pattern),
        "risk_from",
        e->risk_from_user ? "user"
        : e->risk_pattern ? "builtin"
                          : "default",
        "share", e->op->share, "self_time_us", timed ? json_real(e->op->time_us) : json_null(),
        "calls", e->op->has_calls ? json_real(e->op->calls) : json_null(), "match",
        tc_gaps_match_name(e->match), "support_op", str_or_null(s ? s->op : NULL), "support_line",
        s ? json_integer(s->line) : json_null(), "alternative",
        str_or_null(s ? s->alternative : NULL), "notes", str_or_null(s ? s->notes : NULL), "why",
        str_or_null(e->why), "line", e->op->line, "t_op_days",
        days_json(e->t_low, e->t_mode, e->t_high));
}

static json_t *totals_json(const tc_gap_inventory *inv, const tc_gap_table *t)
{
    json_t *share = json_object(), *count = json_object();
    for (int s = 0; s < TC_GAP_N_STATUS; s++) {
        json_object_set_new(share, tc_gaps_status_name((tc_gap_status)s), json_real(t->share[s]));
        json_object_set_new(count, tc_gaps_status_name((tc_gap_status)s),
                            json_integer((json_int_t)t->count[s]));
    }
    json_object_set_new(share, "other", json_real(t->share_other));
    return json_pack("{s:I,s:I,s:I,s:I,s:o,s:o}", "ops", (json_int_t)t->n, "skipped_rows",
                     (json_int_t)(inv->n_skipped + t->n_labels), "skipped_labels",
                     (json_int_t)t->n_labels, "negative_cpu_times", (json_int_t)inv->n_negative_cpu,
                     "share", share, "count", count);
}

json_t *tc_gaps_json(const tc_gap_inventory *inv, const tc_gap_table *t, const char *ops_file,
                     const char *support_file, const char *risk_file)
{
    json_t *ops = json_array(), *warn = json_array();
    for (size_t i = 0; ops && i < t->n; i++)
        json_array_append_new(ops, entry_json(&t->rows[i], inv->source));
    char lines[MAX_WARNINGS][512];
    int n = warnings(inv, t, lines);
    for (int i = 0; warn && i < n; i++)
        json_array_append_new(warn, tc_report_json_string(lines[i]));
    return json_pack("{s:o,s:o,s:o,s:s,s:s,s:o,s:o,s:o,s:s,s:o,s:s}", "ops_file",
                     str_or_null(ops_file), "support_file", str_or_null(support_file),
                     "risk_patterns_file", str_or_null(risk_file), "format",
                     tc_gaps_format_name(inv->format), "share_source",
                     tc_gaps_source_name(inv->source), "ops", ops, "totals", totals_json(inv, t),
                     "t_op_days", days_json(t->t_low, t->t_mode, t->t_high), "t_op_rule", T_OP_RULE,
                     "warnings", warn, "note", NOTE);
}

/* ---- text ---- */

static const char *source_words(tc_gap_share_source s)
{
    switch (s) {
    case TC_SHARE_DEVICE_TIME:
        return "share of self device time";
    case TC_SHARE_CPU_TIME:
        return "share of self CPU time (no device time recorded)";
    case TC_SHARE_COUNT:
        return "share of calls, not time";
    default:
        return "share as the file gives it";
    }
}

/* At most `width` bytes of s, cut with "..." when longer. */
static void clip(const char *s, int width, char *out, size_t outlen)
{
    size_t n = strlen(s);
    if ((int)n <= width || width < 4)
        snprintf(out, outlen, "%s", s);
    else
        snprintf(out, outlen, "%.*s...", width - 3, s);
}

static void print_rows(const tc_gap_table *t)
{
    printf("  %6s  %-44s %-8s %-9s %-11s %s\n", "share", "operator", "dtype", "status", "risk",
           "alternative");
    for (size_t i = 0; i < t->n; i++) {
        const tc_gap_entry *e = &t->rows[i];
        char name[64], dtype[16];
        clip(e->op->name, 44, name, sizeof name);
        clip(e->op->dtype, 8, dtype, sizeof dtype);
        const char *alt = e->support && e->support->alternative[0] ? e->support->alternative : "-";
        char share[16];
        if (e->op->share > 0 && e->op->share < 0.0005)
            snprintf(share, sizeof share, "<0.1%%");
        else
            snprintf(share, sizeof share, "%.1f%%", 100 * e->op->share);
        printf("  %6s  %-44s %-8s %-9s %-11s %s\n", share, name, dtype,
               tc_gaps_status_name(e->status), tc_gaps_risk_name(e->risk),
               e->status == TC_GAP_NATIVE ? "-" : alt);
    }
}

/* The notes of every gap: why it is one and what the list says. */
static void print_gap_notes(const tc_gap_table *t)
{
    int header = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tc_gap_entry *e = &t->rows[i];
        const char *notes = e->support ? e->support->notes : "";
        if (e->status == TC_GAP_NATIVE || (!notes[0] && !e->why[0]))
            continue;
        if (!header++)
            puts("Gaps:");
        printf("  %s (%s, %s risk: %s): %s%s%s\n", e->op->name, tc_gaps_status_name(e->status),
               tc_gaps_risk_name(e->risk), e->risk_category, notes,
               notes[0] && e->why[0] ? "; " : "", e->why);
    }
}

static void print_table(const tc_gap_inventory *inv, const tc_gap_table *t, const gaps_args *a)
{
    printf("Operator gaps of %s (%s, %s) against %s\n", a->ops, tc_gaps_format_name(inv->format),
           source_words(inv->source), a->support);
    print_rows(t);
    print_gap_notes(t);
    puts("Share by status:");
    for (int s = 0; s < TC_GAP_N_STATUS; s++)
        printf("  %-9s %6.1f%%  %zu operator%s\n", tc_gaps_status_name((tc_gap_status)s),
               100 * t->share[s], t->count[s], t->count[s] == 1 ? "" : "s");
    printf("  %-9s %6.1f%%  not operators, or not in the inventory\n", "other",
           100 * t->share_other);
    printf("T_op: %.2f .. %.2f .. %.2f person-days (low .. mode .. high)\n", t->t_low, t->t_mode,
           t->t_high);
    printf("  %s\n", T_OP_RULE);
    char lines[MAX_WARNINGS][512];
    int n = warnings(inv, t, lines);
    for (int i = 0; i < n; i++)
        printf("Warning: %s\n", lines[i]);
    printf("Note: %s.\n", NOTE);
}

static int report(const gaps_input *in, const gaps_args *a)
{
    tc_gap_table t;
    if (tc_gaps_build(&in->inv, &in->sup, a->risks ? &in->risks : NULL, &t) != TC_OK) {
        tc_cli_error("gaps: out of memory building the table");
        return TC_EXIT_RUNTIME;
    }
    int code = 0;
    if (!a->json) {
        print_table(&in->inv, &t, a);
    } else {
        char err[256];
        json_t *doc = tc_gaps_json(&in->inv, &t, a->ops, a->support, a->risks);
        if (!doc || tc_report_json_dump(stdout, doc, err, sizeof err) != TC_OK) {
            tc_cli_error("gaps: %s", doc ? err : "out of memory writing JSON");
            code = TC_EXIT_RUNTIME;
        }
        json_decref(doc);
    }
    tc_gaps_table_free(&t);
    return code;
}

int tc_cmd_gaps(int argc, char **argv)
{
    gaps_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("gaps");
    if (a.help) {
        tc_cmd_gaps_help(stdout);
        return 0;
    }
    gaps_input in;
    memset(&in, 0, sizeof in);
    int code = read_one(0, a.ops, a.dtype, &in);
    if (!code)
        code = read_one(1, a.support, NULL, &in);
    if (!code && a.risks)
        code = read_one(2, a.risks, NULL, &in);
    if (!code)
        code = report(&in, &a);
    tc_gaps_inventory_free(&in.inv);
    tc_gaps_support_free(&in.sup);
    tc_gaps_risks_free(&in.risks);
    return code;
}
