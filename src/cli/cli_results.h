/* Shared by the commands that read results (run, runs, show, export). */
#ifndef TC_CLI_RESULTS_H
#define TC_CLI_RESULTS_H

#include "analysis/slo.h"
#include "record/record.h"
#include <stdio.h>

#include "store/store.h"

/* Opens the database named by --db (NULL: the default path). On failure
 * prints why and returns TC_EXIT_RUNTIME; else 0. */
int tc_cli_open_store(const char *db, tc_store_mode mode, tc_store **out);

/* What tc_cli_print_run prints: the table, the JSON document, or nothing
 * (only the error-rate check). */
enum { TC_PRINT_TABLE = 0, TC_PRINT_JSON = 1, TC_PRINT_NONE = 2 };

/* Loads the run's requests, computes its figures and prints the table (or
 * the JSON document, or nothing: `json` is a TC_PRINT_*) on stdout. Returns 0, TC_EXIT_RUNTIME when
 * the run could not be read, or 3 when the measured error rate is above max_error_rate (pass a
 * value > 1 to never return 3). */
int tc_cli_print_run(tc_store *st, const tc_run_info *run, int json, double max_error_rate,
                     const tc_slo *slo);

/* Prints the soak of `run` (its verdict, windows, outages; JSON with
 * json) and sets *found; nothing when the run is no soak (*found = 0,
 * returns 0). The exit status: TC_EXIT_CHECK when the verdict is FAIL. */
int tc_cli_print_soak(tc_store *st, const tc_run_info *run, int json, int *found);

#endif
