/* Before a run: open files, the group, the API key. */
#include "measure_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

tc_err tc_measure_open_files(long long concurrency, unsigned long long *need,
                             unsigned long long *limit)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)concurrency + 64;
    *need = (unsigned long long)want;
    *limit = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return TC_OK;
    *limit = (unsigned long long)rl.rlim_max;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
        return TC_ERR_INVALID;
    rl.rlim_cur = want;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0 ? TC_OK : TC_ERR_IO;
}

tc_err tc_measure_group(tc_store *store, const char *label, int repeat, char *group, size_t len,
                        size_t *existing, char *err, size_t errlen)
{
    *existing = 0;
    group[0] = '\0';
    if (repeat > 1 && label) {
        snprintf(group, len, "%s", label);
    } else if (repeat > 1) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(group, len, "repeat-%Y%m%d-%H%M%S", &tm);
    } else if (!label) {
        return TC_OK;
    }
    tc_run_info *runs = NULL;
    tc_err rc = tc_store_find_group(store, group[0] ? group : label, &runs, existing, err, errlen);
    free(runs);
    return rc;
}

tc_err tc_measure_api_key(const char *key_env, const tc_endpoint *ep, const char **key,
                          tc_measure_key *how)
{
    *key = key_env ? getenv(key_env) : getenv("OPENAI_API_KEY");
    *how = key_env ? TC_MEASURE_KEY_NAMED : TC_MEASURE_KEY_DEFAULT;
    if (key_env && (!*key || !**key)) {
        *key = NULL;
        return TC_ERR_NOTFOUND;
    }
    if (!key_env && (ep->local || !*key || !**key))
        *how = TC_MEASURE_KEY_NONE;
    else if (!key_env && strncmp(ep->base, "https://", 8) != 0)
        *how = TC_MEASURE_KEY_WITHHELD;
    if (*how == TC_MEASURE_KEY_NONE || *how == TC_MEASURE_KEY_WITHHELD)
        *key = NULL;
    return TC_OK;
}
