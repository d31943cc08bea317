#include "sim_model.h"

#include <stdio.h>

#include "core/tc_time.h"

void tc_sim_timing_defaults(tc_sim_timing *t)
{
    t->ttft_ms = 20.0;
    t->prefill_tps = 2000.0;
    t->decode_tps = 100.0;
    t->jitter_ms = 0.0;
    t->max_batch = 64;
}

int64_t tc_sim_ttft_ns(const tc_sim_timing *t, int prompt_tokens)
{
    double ns = t->ttft_ms * (double)TC_NS_PER_MS;
    if (prompt_tokens > 0)
        ns += (double)prompt_tokens / t->prefill_tps * (double)TC_NS_PER_S;
    /* A huge prompt at a tiny prefill rate must not overflow the clock. */
    if (ns > 3600.0 * (double)TC_NS_PER_S)
        ns = 3600.0 * (double)TC_NS_PER_S;
    return (int64_t)(ns + 0.5);
}

int64_t tc_sim_interval_ns(const tc_sim_timing *t, int active)
{
    double slow = 1.0;
    if (active > t->max_batch)
        slow = (double)active / (double)t->max_batch;
    return (int64_t)((double)TC_NS_PER_S / t->decode_tps * slow + 0.5);
}

int64_t tc_sim_jitter_ns(const tc_sim_timing *t, tc_rng *rng)
{
    if (t->jitter_ms <= 0.0)
        return 0;
    return (int64_t)(tc_rng_unit(rng) * t->jitter_ms * (double)TC_NS_PER_MS);
}

int tc_sim_timing_validate(const tc_sim_timing *t, char *err, size_t errlen)
{
    const char *bad = NULL;
    if (!(t->ttft_ms >= 0 && t->ttft_ms <= 3600e3))
        bad = "--ttft-ms must be between 0 and 3600000";
    else if (!(t->prefill_tps > 0 && t->prefill_tps <= 1e9))
        bad = "--prefill-tps must be greater than 0";
    else if (!(t->decode_tps > 0 && t->decode_tps <= 1e6))
        bad = "--decode-tps must be greater than 0 and at most 1000000";
    else if (!(t->jitter_ms >= 0 && t->jitter_ms <= 60e3))
        bad = "--jitter-ms must be between 0 and 60000";
    else if (t->max_batch < 1)
        bad = "--max-batch must be at least 1";
    if (bad && err && errlen)
        snprintf(err, errlen, "%s", bad);
    return bad ? -1 : 0;
}
