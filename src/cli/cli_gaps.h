/* truecost gaps: the operator gap table of a model on a target backend. */
#ifndef TC_CLI_GAPS_H
#define TC_CLI_GAPS_H

#include <stdio.h>

#include "assess/gaps.h"

/* The subcommand: `truecost gaps --ops FILE --support FILE
 * [--risk-patterns FILE] [--dtype D] [--json]`. Returns 0, 1 (usage or a
 * bad file, the message naming FILE:LINE) or 2 (a file cannot be read). */
int tc_cmd_gaps(int argc, char **argv);
void tc_cmd_gaps_help(FILE *out);

#endif
