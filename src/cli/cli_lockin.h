/* truecost lockin: the one-time cost of leaving an ecosystem, from an
 * assessment file plus whatever evidence replaces its guesses. */
#ifndef TC_CLI_LOCKIN_H
#define TC_CLI_LOCKIN_H

#include <stdint.h>
#include <stdio.h>

#include "assess/lockin.h"

/* Evaluates *a with the evidence in *o (may be NULL) over `samples` draws
 * from `seed` and prints the report on stdout: text, or the JSON document
 * when `json`. Errors go to stderr. Returns an exit status: 0, TC_EXIT_USAGE
 * (a bad override or sample count) or TC_EXIT_RUNTIME (no memory, write
 * error). The options that read evidence from files or stored runs fill *o
 * and call this. */
int tc_cli_lockin_report(const tc_lockin *a, const tc_lockin_overrides *o, long samples,
                         uint64_t seed, int json);

#endif
