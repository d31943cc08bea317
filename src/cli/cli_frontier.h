/* Frontier readings in the CLI, shared by `frontier` and by `compare` of
 * two sweeps: the --at list, and loading, reading and printing two sides. */
#ifndef TC_CLI_FRONTIER_H
#define TC_CLI_FRONTIER_H

#include <stddef.h>

#include "app/app_frontier.h"

#include "analysis/frontier_cost.h"
#include "store/store.h"

/* Parses "20,35,50,100" (NULL: that default) into up to
 * TC_FRONTIER_MAX_TARGETS interactivities above 0, in rising order, each
 * once. 0, or -1 after saying what is wrong with --at to cmd's user. */
int tc_cli_frontier_targets(const char *cmd, const char *text, double *out, size_t *n);

#endif
