/* RUN arguments as runs or groups, said and mapped to exit statuses. */
#include "cli_runset.h"
#include "views/view_train.h"

#include "cli.h"
#include "views/view_figures.h"

int tc_cli_runset_find(tc_store *st, const char *which, tc_runset *out)
{
    char err[512];
    if (tc_view_runset(st, which, out, err, sizeof err) == TC_OK)
        return 0;
    tc_cli_error("%s", err);
    return TC_EXIT_RUNTIME;
}

int tc_cli_runset_load(tc_store *st, const tc_runset *s, tc_figures **f)
{
    char err[512];
    if (tc_view_runset_figures(st, s, TC_FIGURES_SUMMARY, f, err, sizeof err) == TC_OK)
        return 0;
    tc_cli_error("%s", err);
    return TC_EXIT_RUNTIME;
}

int tc_cli_is_train(tc_store *st, const char *which)
{
    tc_runset set;
    char err[512];
    if (tc_view_runset(st, which, &set, err, sizeof err) != TC_OK)
        return 0; /* not found: said where it is looked up */
    int train = !set.is_group && set.n == 1 && tc_view_is_train(&set.runs[0]);
    tc_runset_free(&set);
    return train;
}
