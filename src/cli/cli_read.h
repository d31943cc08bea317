/* What the commands that read results share (runs, show, export; run,
 * sweep and soak print a result as show does). */
#ifndef TC_CLI_READ_H
#define TC_CLI_READ_H

#include "app/app.h"
#include "record/record.h"
#include "report/report_show.h"
#include "store/store.h"

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

#endif
