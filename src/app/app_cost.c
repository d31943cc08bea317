/* truecost cost's work: a stored run (or training run) priced with a cost profile. */
#include <string.h>

#include "app/app.h"
#include "app/app_cost.h"
#include "analysis/cost.h"
#include "app/app_runset.h"
#include "report/report_cost.h"

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

int tc_app_cost(tc_app_cost_args *a)
{
    tc_cost_profile p;
    if (tc_app_load_profile(a->profile, &p))
        return TC_EXIT_USAGE;
    tc_store *st;
    tc_runset set;
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    code = tc_app_runset_find(st, a->run, &set);
    if (!code && tc_app_is_train(st, a->run))
        code = tc_app_train_cost(st, a->run, &p, a->json);
    else if (!code)
        code = price(st, &set, &p, a->json);
    tc_runset_free(&set);
    tc_store_close(st);
    return code;
}
