/* truecost kernels: reads one or two profiler kernel tables (incumbent,
 * alternative), prints the time per class, the largest non-GEMM kernels,
 * attention fallbacks and, for two, the matched kernels and the suggested
 * tuning list with its person-days. */

#include <stdio.h>
#include <string.h>

#include "assess/kernels.h"
#include "cli.h"
#include "app/app_kernels.h"
#include "cli_opts.h"
#include "report/report_kernels.h"

#define TOP_DEFAULT 10
#define TOP_MAX 1000

static int parse_args(int argc, char **argv, tc_app_kernels_args *a)
{
    memset(a, 0, sizeof *a);
    a->top = TOP_DEFAULT;
    const tc_cli_opt opts[] = {
        TC_OPT_I("top", 0, &a->top, 1, TOP_MAX),
        TC_OPT_S("rules", 0, &a->rules),
        TC_OPT_JSON(&a->json),
        TC_OPT_END,
    };
    a->n = tc_cli_parse("kernels", argc, argv, opts, NULL, a->files, 2,
                        " (give one kernel table, or two: incumbent, alternative)");
    if (a->n < 0)
        return -1;
    if (a->n == 0) {
        tc_app_error("kernels: a kernel table is required (FILE, or FILE FILE_B to compare an "
                     "incumbent with an alternative)");
        return -1;
    }
    return 0;
}

int tc_cmd_kernels(int argc, char **argv)
{
    tc_app_kernels_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("kernels");
    return tc_app_kernels(&a);
}
