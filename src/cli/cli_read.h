/* What the commands that read results share (runs, show, export; run,
 * sweep and soak print a result as show does). */
#ifndef TC_CLI_READ_H
#define TC_CLI_READ_H

#include "record/record.h"
#include "report/report_show.h"
#include "store/store.h"

/* Opens the database named by --db (NULL: the default path). On failure
 * prints why and returns TC_EXIT_RUNTIME; else 0. */
int tc_cli_open_store(const char *db, tc_store_mode mode, tc_store **out);

/* The options of runs, show and export, one table: --db, --json, --what,
 * --format, -o, --slo, each refused (named, with the command it belongs
 * to) by the commands that do not take it. */
typedef struct read_args {
    const char *db, *run, *what, *format, *output, *slo;
    int json, help;
} read_args;

/* Parses cmd's options and at most `positional` arguments (the RUN).
 * Returns 0, or -1 after saying why. */
int tc_cli_read_args(const char *cmd, int argc, char **argv, int positional, read_args *a);

/* A result shown (report_show.h) on stdout in `form`; its notes said. The
 * exit status: 0 or TC_EXIT_RUNTIME (said). */
tc_show tc_cli_show_on(tc_show_form form);
int tc_cli_shown(tc_err rc, const tc_show *s, const char *err);

/* A run shown (show, and run when it ends): TC_EXIT_CHECK, said, when
 * more of its measured requests failed than max_error_rate (> 1: never). */
int tc_cli_show_run(tc_store *st, const tc_run_info *run, tc_show_form form, double max_error_rate,
                    const tc_slo *slo);

/* A group of repeats, shown. */
int tc_cli_show_group(tc_store *st, const tc_runset *set, int json);

#endif
