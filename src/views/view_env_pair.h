/* `truecost env --diff A B`: two environment fingerprints, each a file
 * saved with `env --json` (envinfo's tc_env_load) or the one stored with
 * a run, and what differs between them (tc_fingerprint_diff). */
#ifndef TC_ENV_PAIR_H
#define TC_ENV_PAIR_H

#include <jansson.h>
#include <stddef.h>

#include "core/tc_error.h"
#include "store/store.h"

typedef struct tc_env_pair {
    json_t *a, *b; /* the fingerprints, loaded by the caller; owned */
    json_t *diffs; /* tc_fingerprint_diff(a, b) once compared; owned */
    size_t n;      /* the number of differences */
} tc_env_pair;

/* The fingerprint stored with run `which` (an id or a label) into *fp, a
 * new reference. TC_ERR_NOTFOUND when there is no such run or it has no
 * recorded environment, TC_ERR_PARSE when what is stored is not JSON, or
 * the store's error; the detail in err. */
TC_MUST_CHECK tc_err tc_view_fingerprint_pair(tc_store *st, const char *which, json_t **fp,
                                                char *err, size_t errlen);

/* Compares p->a with p->b into p->diffs and p->n. TC_OK or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_view_fingerprint_pair_compare(tc_env_pair *p);

/* Drops the fingerprints and the differences, and zeroes p; accepts NULL. */
void tc_view_fingerprint_pair_free(tc_env_pair *p);

#endif
