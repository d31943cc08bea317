/* truecost env's work: its options, and the environment printed or two compared. */
#ifndef TC_APP_ENV_H
#define TC_APP_ENV_H

#include "analysis/env_diff.h"
#include "views/view_env_pair.h"
#include "envinfo/env_fingerprint.h"

typedef struct tc_app_env_args {
    tc_env_config cfg;
    int json, diff, no_server;
    const char *db; /* --diff of stored runs: the results database */
    const char *key_env;
    const char *files[2];
} tc_app_env_args;

/* The fingerprint (or, with a->diff, the differences) printed; the exit status. */
int tc_app_env(tc_app_env_args *a);

#endif
