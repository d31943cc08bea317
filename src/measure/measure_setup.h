/* Before a run: what the process and the store must allow. */
#ifndef TC_MEASURE_SETUP_H
#define TC_MEASURE_SETUP_H

#include <stddef.h>

#include "bench/bench_url.h"
#include "core/tc_error.h"
#include "store/store.h"

/* Every request in flight holds a socket: makes sure the process may open
 * about concurrency + 64 files (*need), raising the soft limit when the
 * hard one (*limit) allows, rather than failing later with errors that
 * look like the server's fault. TC_ERR_INVALID when the hard limit is too
 * low, TC_ERR_IO when it could not be raised. */
TC_MUST_CHECK tc_err tc_measure_open_files(long long concurrency, unsigned long long *need,
                                           unsigned long long *limit);

/* The group of the runs to make. With repeat > 1, writes its name into
 * group: the label, or "repeat-YYYYMMDD-HHMMSS" (UTC) without one; else
 * group is "". *existing is how many stored runs already form the group
 * (with repeat 1: the group named like the label), 0 when none: an
 * existing group is not extended (its runs could be of another workload),
 * and a plain run may not take a group's name (commands would take the
 * name for the group). Errors are the store's. */
TC_MUST_CHECK tc_err tc_measure_group(tc_store *store, const char *label, int repeat, char *group,
                                      size_t len, size_t *existing, char *err, size_t errlen);

/* How tc_measure_api_key chose. */
typedef enum tc_measure_key {
    TC_MEASURE_KEY_NONE,    /* no key */
    TC_MEASURE_KEY_NAMED,   /* the variable the caller named */
    TC_MEASURE_KEY_DEFAULT, /* $OPENAI_API_KEY, to a non-local https host */
    TC_MEASURE_KEY_WITHHELD /* $OPENAI_API_KEY is set, but not sent over plain http */
} tc_measure_key;

/* The API key to send to ep (*key points into the environment, or is
 * NULL): $key_env when the caller names one (TC_ERR_NOTFOUND when it is
 * unset or empty); else $OPENAI_API_KEY, but only to an https host that
 * is not local: a key must not cross the network in clear text unless the
 * user asked for it by name. */
TC_MUST_CHECK tc_err tc_measure_api_key(const char *key_env, const tc_endpoint *ep,
                                        const char **key, tc_measure_key *how);

/* Shard i's (1..n) share of `total` (requests, concurrency): total / n,
 * and one more for the first total % n shards, so the shares add up. */
int64_t tc_measure_shard_share(int64_t total, int i, int n);

/* Reads --start-at: an RFC 3339 UTC time ("2026-12-01T10:00:00Z",
 * fraction of a second allowed) or "+SECONDS" from now_wall_ns, into
 * *wall_ns. TC_ERR_INVALID with the expected forms in err. */
TC_MUST_CHECK tc_err tc_measure_parse_start(const char *text, int64_t now_wall_ns, int64_t *wall_ns,
                                            char *err, size_t errlen);

#endif
