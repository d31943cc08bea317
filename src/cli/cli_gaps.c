/* truecost gaps: reads an operator inventory and a backend support list,
 * prints the gap table (status, risk class, share of time, alternative)
 * and T_op, the person-days range that `truecost lockin --gaps` takes. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "assess/gaps_doc.h"
#include "core/tc_json.h"

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
    printf("  %s\n", TC_GAPS_T_OP_RULE);
    char lines[TC_GAPS_MAX_WARNINGS][512];
    int n = tc_gaps_warnings(inv, t, lines);
    for (int i = 0; i < n; i++)
        printf("Warning: %s\n", lines[i]);
    printf("Note: %s.\n", TC_GAPS_NOTE);
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
        if (!doc || tc_json_dump(stdout, doc, err, sizeof err) != TC_OK) {
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
