/* RUN arguments in the CLI: the library's runset and figures loader
 * (analysis/figures.h), with the error said and mapped to an exit status. */
#ifndef TC_CLI_RUNSET_H
#define TC_CLI_RUNSET_H

#include "analysis/figures.h"
#include "views/view_figures.h"

/* tc_view_runset; on failure prints why and returns TC_EXIT_RUNTIME. */
int tc_cli_runset_find(tc_store *st, const char *which, tc_runset *out);

/* tc_view_runset_figures; on failure prints why and returns TC_EXIT_RUNTIME. */
int tc_cli_runset_load(tc_store *st, const tc_runset *s, tc_figures **f);

/* 1 after saying that `which` is a training run, which cmd (cost,
 * compare) does not take; 0 otherwise (not found included). */
int tc_cli_refuse_train(tc_store *st, const char *cmd, const char *which);

#endif
