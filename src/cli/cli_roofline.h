/* truecost roofline: a stored run's bandwidth ceiling on its GPU. */
#ifndef TC_CLI_ROOFLINE_H
#define TC_CLI_ROOFLINE_H

#include <stdio.h>

int tc_cmd_roofline(int argc, char **argv);
void tc_cmd_roofline_help(FILE *out);

#endif
