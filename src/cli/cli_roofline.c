/* truecost roofline: how close a stored run's single-stream decode came to
 * the bandwidth bound of its GPU, and the prefill bound; computed on read,
 * so a corrected spec table applies to old runs. */
#include <string.h>

#include "analysis/roofline_run.h"
#include "cli.h"
#include "app/app_roofline.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "app/app_roofline.h"
#include "report/report_roofline.h"
#include "views/view_roofline.h"

static int parse_params_opt(const char *text, void *ctx)
{
    tc_app_roofline_args *a = ctx;
    if (tc_roofline_parse_params(text, &a->params) == TC_OK)
        return 0;
    tc_app_error("roofline: --params: '%s' is not a parameter count (e.g. 8B, 135M, 8030261248)",
                 text);
    return -1;
}

static int parse_args(int argc, char **argv, tc_app_roofline_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_S("gpu", 0, &a->gpu),
        TC_OPT_S("gpu-specs", 0, &a->specs),
        TC_OPT_D("model-bytes", 0, &a->model_bytes, 1, 1e15),
        TC_OPT_C("params", 0, parse_params_opt, 1),
        TC_OPT_D("kv-bytes", 0, &a->kv_bytes, 0, 1e15),
        TC_OPT_F("list", 0, &a->list),
        TC_OPT_END,
    };
    if (tc_cli_parse("roofline", argc, argv, opts, a, &a->run, 1, NULL) < 0)
        return -1;
    if (a->list && a->run) {
        tc_app_error("roofline: --list takes no run");
        return -1;
    }
    if (!a->list && !a->run) {
        tc_app_error("roofline: which run? give its id or label (see 'truecost runs'), or --list");
        return -1;
    }
    return 0;
}

int tc_cmd_roofline(int argc, char **argv)
{
    tc_app_roofline_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("roofline");
    return tc_app_roofline(&a);
}
