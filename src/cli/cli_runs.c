/* truecost runs: every stored run, newest last, with its headline
 * figures; and the option parsing the commands that read results share. */
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "report/report_json.h"
#include "report/report_table.h"
#include "views/view_figures.h"

int tc_cli_read_args(const char *cmd, int argc, char **argv, int positional, read_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_S("what", 0, &a->what),
        TC_OPT_S("format", 0, &a->format),
        TC_OPT_S("output", 'o', &a->output),
        TC_OPT_SLO(&a->slo),
        TC_OPT_END,
    };
    if (tc_cli_parse(cmd, argc, argv, opts, NULL, &a->run, positional, NULL) < 0)
        return -1;
    if (strcmp(cmd, "export") != 0 && (a->what || a->format || a->output)) {
        tc_app_error("%s: --what, --format and -o belong to 'truecost export'", cmd);
        return -1;
    }
    if (strcmp(cmd, "show") != 0 && a->slo) {
        tc_app_error("%s: --slo belongs to 'truecost show' (and 'run')", cmd);
        return -1;
    }
    if (strcmp(cmd, "export") == 0 && a->json) {
        tc_app_error("export: use --format json");
        return -1;
    }
    if (positional && !a->run) {
        tc_app_error("%s: which run? give its id or label (see 'truecost runs')", cmd);
        return -1;
    }
    return 0;
}

int tc_cmd_runs(int argc, char **argv)
{
    read_args a;
    if (tc_cli_read_args("runs", argc, argv, 0, &a) < 0)
        return tc_cli_usage_hint("runs");
    tc_store *st;
    int code = tc_app_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_figures_list l;
    char err[512];
    code = tc_app_check(tc_view_figures_list(st, &l, err, sizeof err), err);
    if (!code && a.json)
        code = tc_app_emit_json("runs", tc_report_runs_json(l.runs, l.mp, l.n));
    else if (!code)
        code = tc_app_check(tc_report_runs_table(stdout, l.runs, l.mp, l.n, 0), NULL);
    tc_figures_list_free(&l);
    tc_store_close(st);
    return code;
}
