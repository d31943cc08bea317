#include "views/view_env_pair.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/env_diff.h"

tc_err tc_view_fingerprint_pair(tc_store *st, const char *which, json_t **fp, char *err,
                                  size_t errlen)
{
    tc_run_info run;
    char *text = NULL;
    *fp = NULL;
    tc_err rc = tc_store_find_run(st, which, &run, err, errlen);
    if (rc == TC_OK)
        rc = tc_store_get_fingerprint(st, run.id, &text, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (!text)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "run %s has no recorded environment (it was made before truecost "
                       "recorded one)",
                       which);
    *fp = json_loads(text, 0, NULL);
    free(text);
    if (!*fp)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "run %s: the stored environment is not valid JSON", which);
    return TC_OK;
}

tc_err tc_view_fingerprint_pair_compare(tc_env_pair *p)
{
    json_decref(p->diffs);
    p->diffs = NULL;
    p->n = 0;
    tc_err rc = tc_fingerprint_diff(p->a, p->b, &p->diffs);
    if (rc == TC_OK)
        p->n = json_array_size(p->diffs);
    return rc;
}

void tc_view_fingerprint_pair_free(tc_env_pair *p)
{
    if (!p)
        return;
    json_decref(p->a);
    json_decref(p->b);
    json_decref(p->diffs);
    memset(p, 0, sizeof *p);
}
