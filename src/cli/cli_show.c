/* truecost show: one stored run, group, sharded run, sweep or soak as
 * its own kind prints (report/report_show.h). */
#include <string.h>

#include "cli.h"
#include "cli_read.h"
#include "app/app_runset.h"
#include "report/report_train.h"
#include "views/view_shards.h"

static int is_sweep(const tc_runset *set)
{
    return set->is_group && strcmp(set->runs[0].group_kind, "sweep") == 0;
}

/* The set as its kind prints; the exit status. */
static int show(tc_store *st, const tc_runset *set, const tc_slo *slo, int json)
{
    char err[512];
    tc_show s = tc_app_show_on(json ? TC_SHOW_JSON : TC_SHOW_TABLE);
    if (is_sweep(set))
        return tc_app_shown(tc_report_show_sweep(st, set, slo, &s, err, sizeof err), &s, err);
    if (tc_view_is_sharded(set))
        return tc_app_shown(tc_report_show_shards(st, set, &s, err, sizeof err), &s, err);
    if (set->is_group)
        return tc_app_show_group(st, set, json);
    /* A training run: its own document. */
    int found = 0;
    tc_err rc = tc_report_show_train(st, &set->runs[0], &s, &found, err, sizeof err);
    if (rc != TC_OK || found)
        return rc == TC_OK ? 0 : tc_app_shown(rc, &s, err);
    /* A soak: its verdict, windows and outages instead (not with --slo). */
    int code =
        slo ? 0
            : tc_app_shown(tc_report_show_soak(st, &set->runs[0], &s, err, sizeof err), &s, err);
    if (s.soak_found)
        return code ? code : s.soak_pass ? 0 : TC_EXIT_CHECK;
    return code ? code : tc_app_show_run(st, &set->runs[0], s.form, 2.0, slo);
}

int tc_cmd_show(int argc, char **argv)
{
    read_args a;
    if (tc_cli_read_args("show", argc, argv, 1, &a) < 0)
        return tc_cli_usage_hint("show");
    tc_slo slo;
    char err[512];
    if (a.slo && tc_slo_parse(a.slo, &slo, err, sizeof err) != TC_OK) {
        tc_app_error("show: %s", err);
        return tc_cli_usage_hint("show");
    }
    tc_store *st;
    tc_runset set = {0};
    int code = tc_app_open_store(a.db, TC_STORE_READ, &st);
    if (!code)
        code = tc_app_runset_find(st, a.run, &set); /* not there: 2, as every command */
    if (!code && set.is_group && a.slo && !is_sweep(&set)) {
        tc_app_error("show: --slo takes one run or a sweep; '%s' is a group of %zu (show each "
                     "run)",
                     a.run, set.n);
        code = TC_EXIT_USAGE;
    } else if (!code)
        code = show(st, &set, a.slo ? &slo : NULL, a.json);
    tc_runset_free(&set);
    tc_store_close(st);
    return code;
}
