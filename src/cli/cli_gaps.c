/* truecost gaps: reads an operator inventory and a backend support list,
 * prints the gap table (status, risk class, share of time, alternative)
 * and T_op, the person-days range that `truecost lockin --gaps` takes. */

#include <stdio.h>
#include <string.h>

#include "assess/gaps_doc.h"
#include "cli.h"
#include "app/app_gaps.h"
#include "cli_opts.h"
#include "report/report_gaps.h"

static int parse_args(int argc, char **argv, tc_app_gaps_args *a)
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

int tc_cmd_gaps(int argc, char **argv)
{
    tc_app_gaps_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("gaps");
    return tc_app_gaps(&a);
}
