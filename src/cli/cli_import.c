/* truecost import: copy the runs of another store into this one. */
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "core/tc_outfile.h"
#include "report/report_import.h"

int tc_cmd_import(int argc, char **argv)
{
    const char *db = NULL, *from = NULL;
    int json = 0;
    const tc_cli_opt opts[] = {TC_OPT_DB(&db), TC_OPT_JSON(&json), TC_OPT_END};
    if (tc_cli_parse("import", argc, argv, opts, NULL, &from, 1, NULL) < 0)
        return tc_cli_usage_hint("import");
    if (!from) {
        tc_app_error("import: which store? give the file (or postgresql:// URL) to copy from");
        return tc_cli_usage_hint("import");
    }
    tc_store *src = NULL, *dst = NULL;
    int code = tc_app_open_store(from, TC_STORE_READ, &src);
    if (!code)
        code = tc_app_open_store(db, TC_STORE_WRITE, &dst);
    if (!code && (strcmp(tc_store_path(src), tc_store_path(dst)) == 0 ||
                  tc_same_file(tc_store_path(src), tc_store_path(dst)))) {
        /* however it is named: --db, TRUECOST_DB, another spelling */
        tc_app_error("import: %s is the target store itself (%s); nothing to do", from,
                     tc_store_path(dst));
        code = TC_EXIT_USAGE;
    }
    tc_store_import_stats st;
    char err[1024];
    if (!code) {
        tc_app_install_stop_signals(); /* Ctrl-C: stop after the run being copied */
        code = tc_app_check(
            tc_store_import_until(dst, src, &tc_app_stop_requested, &st, err, sizeof err), err);
    }
    if (!code && st.interrupted) {
        tc_app_error("import: interrupted: %zu run(s) copied whole, the rest left; run it again "
                     "to import them (runs already there are skipped)",
                     st.copied);
        code = tc_app_signal_exit();
    }
    if (!code && json)
        code = tc_app_emit_json("import",
                                tc_report_import_json(tc_store_path(src), tc_store_path(dst), &st));
    else if (!code)
        code = tc_app_check(
            tc_report_import_text(stdout, tc_store_path(src), tc_store_path(dst), &st), NULL);
    tc_store_close(src);
    tc_store_close(dst);
    return code;
}
