/* The readable form of `truecost env`, shared by the env command and
 * (later) by the commands that show a stored run's fingerprint. */
#ifndef TC_CLI_ENV_H
#define TC_CLI_ENV_H

#include <jansson.h>
#include <stdio.h>

/* Prints fingerprint fp (as tc_env_collect builds it) as a block of
 * labelled lines; n/a for what is null or missing. */
void tc_cli_env_print(json_t *fp, FILE *out);

#endif
