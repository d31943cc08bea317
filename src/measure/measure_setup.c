/* Before a run: open files, the group, the API key. */
#include "measure_setup.h"

#include <errno.h>
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

int64_t tc_measure_shard_share(int64_t total, int i, int n)
{
    if (n < 1 || i < 1 || i > n)
        return total;
    return total / n + (i <= total % n ? 1 : 0);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (no time zone
 * database: the input is UTC). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

tc_err tc_measure_parse_start(const char *text, int64_t now_wall_ns, int64_t *wall_ns, char *err,
                              size_t errlen)
{
    if (text[0] == '+') {
        char *end;
        errno = 0;
        double s = strtod(text + 1, &end);
        if (errno || end == text + 1 || *end || !(s >= 0 && s <= 86400))
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "--start-at '%s': expected +SECONDS (0 to 86400) or a UTC time such "
                           "as 2026-12-01T10:00:00Z",
                           text);
        *wall_ns = now_wall_ns + (int64_t)(s * 1e9);
        return TC_OK;
    }
    int y, mo, d, h, mi, sec, used = 0;
    if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
        used != 19 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
        h < 0 || mi < 0 || sec < 0)
        goto bad;
    int64_t frac_ns = 0;
    const char *p = text + used;
    if (*p == '.') {
        int64_t scale = 100000000;
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
            frac_ns += scale * (*p - '0');
    }
    if (strcmp(p, "Z") != 0 && strcmp(p, "z") != 0 && strcmp(p, "+00:00") != 0)
        goto bad;
    int64_t days = days_from_civil(y, mo, d);
    *wall_ns = ((days * 86400 + h * 3600 + mi * 60 + sec) * (int64_t)1000000000) + frac_ns;
    /* As +SECONDS is: a start more than a day away is a typo, not a plan
     * (the process would sit waiting for it). */
    if (*wall_ns - now_wall_ns > 86400 * (int64_t)1000000000)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--start-at '%s' is more than 24 h from now: give a time within a day "
                       "(or +SECONDS, 0 to 86400)",
                       text);
    return TC_OK;
bad:
    return tc_fail(err, errlen, TC_ERR_INVALID,
                   "--start-at '%s': expected a UTC time such as 2026-12-01T10:00:00Z (or "
                   "+SECONDS from now)",
                   text);
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
