/* Frontier readings in the CLI, shared by `frontier` and by `compare` of
 * two sweeps: the --at list, and loading, reading and printing two sides. */
#ifndef TC_CLI_FRONTIER_H
#define TC_CLI_FRONTIER_H

#include <stddef.h>

#include "analysis/frontier_cost.h"
#include "store/store.h"

/* Parses "20,35,50,100" (NULL: that default) into up to
 * TC_FRONTIER_MAX_TARGETS interactivities above 0, in rising order, each
 * once. 0, or -1 after saying what is wrong with --at to cmd's user. */
int tc_cli_frontier_targets(const char *cmd, const char *text, double *out, size_t *n);

/* Loads `which_a` (and `which_b`, may be NULL) as frontier sides priced
 * with pa (pb for B), reads them at ask's targets and prints the frontier
 * document, as JSON when json is set. Returns 0 or an exit status, said. */
int tc_cli_frontier_pair(tc_store *st, const char *which_a, const char *which_b,
                         const tc_cost_profile *pa, const tc_cost_profile *pb, const tc_slo *slo,
                         const tc_frontier_ask *ask, int json);

#endif
