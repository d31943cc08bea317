/* truecost roofline: a stored run's bandwidth ceiling on its GPU; and the
 * spec table loaded with its error said, for the commands that print the
 * bound. */
#ifndef TC_CLI_ROOFLINE_H
#define TC_CLI_ROOFLINE_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/roofline.h"
#include "analysis/run_energy.h"

/* tc_roofline_table_load (analysis/roofline_run.h); on failure prints why
 * and returns TC_EXIT_USAGE (a bad specs file) or TC_EXIT_RUNTIME (out of
 * memory); else 0. Free with tc_roofline_table_free. */
int tc_cli_roofline_table_load(const char *specs, tc_roofline_table *t);

#endif
