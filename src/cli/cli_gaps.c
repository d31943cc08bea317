/* truecost gaps: reads an operator inventory and a backend support list,
 * prints the gap table (status, risk class, share of time, alternative)
 * and T_op, the person-days range that `truecost lockin --gaps` takes. */

#include <stdio.h>
#include <string.h>

#include "assess/gaps_doc.h"
#include "cli.h"
#include "cli_opts.h"
#include "report/report_gaps.h"

typedef struct gaps_args {
    const char *ops, *support, *risks, *dtype;
    int json;
} gaps_args;

static int parse_args(int argc, char **argv, gaps_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_S("ops", 0, &a->ops),
        TC_OPT_S("support", 0, &a->support),
        TC_OPT_S("risk-patterns", 0, &a->risks),
        TC_OPT_S("dtype", 0, &a->dtype),
        TC_OPT_JSON(&a->json),
        TC_OPT_END,
    };
    if (tc_cli_parse("gaps", argc, argv, opts, NULL, NULL, 0,
                     " (give files with --ops and --support)") < 0)
        return -1;
    if (!a->ops || !a->support) {
        tc_app_error("gaps: --ops FILE and --support FILE are required (examples in examples/)");
        return -1;
    }
    if (a->dtype && (!a->dtype[0] || strlen(a->dtype) > 32)) {
        tc_app_error("gaps: --dtype: '%s' is not a dtype (expected e.g. fp16, bf16, int8)",
                     a->dtype);
        return -1;
    }
    return 0;
}

/* Builds the table of the files and prints it. */
static int report(const tc_gap_files *f, const gaps_args *a)
{
    tc_gap_table t;
    if (tc_gaps_build(&f->inv, &f->sup, a->risks ? &f->risks : NULL, &t) != TC_OK) {
        tc_app_error("gaps: out of memory building the table");
        return TC_EXIT_RUNTIME;
    }
    int code = 0;
    if (a->json)
        code = tc_app_emit_json("gaps", tc_gaps_json(&f->inv, &t, a->ops, a->support, a->risks));
    else
        tc_report_gaps_print(stdout, &f->inv, &t, a->ops, a->support);
    tc_gaps_table_free(&t);
    return code;
}

int tc_cmd_gaps(int argc, char **argv)
{
    gaps_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("gaps");
    tc_gap_files f;
    char err[1024];
    tc_err rc = tc_gaps_files_load(a.ops, a.support, a.risks, a.dtype, &f, err, sizeof err);
    int code;
    if (rc != TC_OK) {
        tc_app_error("%s", err);
        code = rc == TC_ERR_IO || rc == TC_ERR_NOMEM ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
    } else {
        code = report(&f, &a);
    }
    tc_gaps_files_free(&f);
    return code;
}
