/* RUN arguments as runs or groups, said and mapped to exit statuses. */
#include "app/app_runset.h"
#include "views/view_train.h"

#include "app/app.h"
#include "views/view_figures.h"

int tc_app_runset_find(tc_store *st, const char *which, tc_runset *out)
{
    char err[512];
    if (tc_view_runset(st, which, out, err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("%s", err);
    return TC_EXIT_RUNTIME;
}

int tc_app_runset_load(tc_store *st, const tc_runset *s, tc_figures **f)
{
    char err[512];
    if (tc_view_runset_figures(st, s, TC_FIGURES_SUMMARY, f, err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("%s", err);
    return TC_EXIT_RUNTIME;
}

int tc_app_is_train(tc_store *st, const char *which)
{
    tc_runset set;
    char err[512];
    if (tc_view_runset(st, which, &set, err, sizeof err) != TC_OK)
        return 0; /* not found: said where it is looked up */
    int train = !set.is_group && set.n == 1 && tc_view_is_train(&set.runs[0]);
    tc_runset_free(&set);
    return train;
}
