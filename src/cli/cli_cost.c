/* truecost cost: a stored run's cost per million output tokens under a
 * cost profile, computed on read so that a new profile applies to old
 * runs. */
#include <string.h>

#include "analysis/cost.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "app/app_runset.h"
#include "report/report_cost.h"

typedef struct cost_args {
    const char *run, *profile, *db;
    int json;
} cost_args;

static int parse_args(int argc, char **argv, cost_args *a)
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

static int price(tc_store *st, const tc_runset *set, const tc_cost_profile *p, int json)
{
    tc_figures *f = NULL;
    tc_set_summary s;
    tc_cost_result r;
    int code = tc_app_runset_load(st, set, &f);
    if (code)
        return code;
    tc_figures_summarise(set->is_group ? "the group" : "the run", set, f, &s);
    tc_runset_figures_free(f, set->n);
    if (tc_cost_compute(p, &s.mean, &r) != TC_OK) {
        tc_app_error("cost: '%s' has no output throughput (no completed request), so no cost "
                     "per token",
                     set->name);
        return TC_EXIT_RUNTIME;
    }
    if (json)
        return tc_app_emit_json("cost", tc_report_cost_json(set, p, &s, &r));
    return tc_app_check(tc_report_cost_text(stdout, set, p, &s, &r), NULL);
}

int tc_cmd_cost(int argc, char **argv)
{
    cost_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("cost");
    tc_cost_profile p;
    char err[1024];
    if (tc_cost_profile_load(a.profile, &p, err, sizeof err) != TC_OK) {
        tc_app_error("%s", err);
        return TC_EXIT_USAGE;
    }
    tc_store *st;
    tc_runset set;
    int code = tc_app_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    code = tc_app_runset_find(st, a.run, &set);
    if (!code && tc_app_is_train(st, a.run))
        code = tc_app_train_cost(st, a.run, &p, a.json);
    else if (!code)
        code = price(st, &set, &p, a.json);
    tc_runset_free(&set);
    tc_store_close(st);
    return code;
}
