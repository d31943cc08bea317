/* truecost run's command line, which sweep and soak take too. */
#ifndef TC_CLI_RUN_H
#define TC_CLI_RUN_H

#include "app/app_run.h"

/* Parses run's command line into *a (defaults: the seeds' recipe). Prints
 * the error and returns -1 on a usage error; else 0. */
int tc_cli_run_parse_args(int argc, char **argv, run_args *a);

#endif
