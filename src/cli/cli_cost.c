/* truecost cost: a stored run's cost per million output tokens under a
 * cost profile, computed on read so that a new profile applies to old
 * runs. */
#include <string.h>

#include "analysis/cost.h"
#include "cli.h"
#include "app/app_cost.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "app/app_runset.h"
#include "report/report_cost.h"

static int parse_args(int argc, char **argv, tc_app_cost_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_S("profile", 0, &a->profile),
        TC_OPT_END,
    };
    if (tc_cli_parse("cost", argc, argv, opts, NULL, &a->run, 1, NULL) < 0)
        return -1;
    if (!a->run) {
        tc_app_error("cost: which run? give its id or label (see 'truecost runs')");
        return -1;
    }
    if (!a->profile) {
        tc_app_error("cost: --profile FILE is required (examples in profiles/)");
        return -1;
    }
    return 0;
}

int tc_cmd_cost(int argc, char **argv)
{
    tc_app_cost_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("cost");
    return tc_app_cost(&a);
}
