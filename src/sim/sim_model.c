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
    t->batch_slowdown = 0.0;
}

/* A huge prompt at a tiny prefill rate must not overflow the clock. */
static int64_t capped_ns(double ns)
{
    if (ns > 3600.0 * (double)TC_NS_PER_S)
        ns = 3600.0 * (double)TC_NS_PER_S;
    return (int64_t)(ns + 0.5);
}

static double prefill_ns(const tc_sim_timing *t, int prompt_tokens)
{
    return prompt_tokens > 0 ? (double)prompt_tokens / t->prefill_tps * (double)TC_NS_PER_S : 0.0;
}

int64_t tc_sim_ttft_ns(const tc_sim_timing *t, int prompt_tokens)
{
    return capped_ns(t->ttft_ms * (double)TC_NS_PER_MS + prefill_ns(t, prompt_tokens));
}

int64_t tc_sim_prefill_ns(const tc_sim_timing *t, int prompt_tokens)
{
    return capped_ns(prefill_ns(t, prompt_tokens));
}

int64_t tc_sim_first_token_ns(const tc_sim_timing *t, int prompt_tokens, int64_t step_ns)
{
    int64_t ttft = tc_sim_ttft_ns(t, prompt_tokens);
    int64_t late = tc_sim_prefill_ns(t, prompt_tokens) + (step_ns > 0 ? step_ns : 0);
    return late > ttft ? late : ttft;
}

void tc_sim_split(int64_t first_ns, int64_t step_ns, int64_t rest_ns, int64_t *prompt_eval_ns,
                  int64_t *eval_ns)
{
    /* The first token was scheduled at least one step after the start
     * (tc_sim_first_token_ns), so the prompt eval is never negative; the
     * clamp only guards the sum against a caller that broke that rule. */
    if (step_ns > first_ns)
        step_ns = first_ns;
    if (step_ns < 0)
        step_ns = 0;
    *prompt_eval_ns = first_ns - step_ns;
    *eval_ns = step_ns + rest_ns;
}

int64_t tc_sim_interval_ns(const tc_sim_timing *t, int active)
{
    double slow = 1.0;
    int batched = active < t->max_batch ? active : t->max_batch;
    if (batched > 1)
        slow += t->batch_slowdown * (double)(batched - 1);
    if (active > t->max_batch)
        slow *= (double)active / (double)t->max_batch;
    return (int64_t)((double)TC_NS_PER_S / t->decode_tps * slow + 0.5);
}

double tc_sim_decode_tps_at(const tc_sim_timing *t, int64_t elapsed_ns)
{
    double factor = 1.0 - t->drift_pct_per_min / 100.0 * (double)elapsed_ns / (60.0 * TC_NS_PER_S);
    return t->decode_tps * (factor > 0.05 ? factor : 0.05);
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
    else if (!(t->batch_slowdown >= 0 && t->batch_slowdown <= 100))
        bad = "--batch-slowdown must be between 0 and 100";
    else if (!(t->drift_pct_per_min >= 0 && t->drift_pct_per_min <= 100))
        bad = "--drift must be between 0 and 100 (% of --decode-tps per minute)";
    if (bad && err && errlen)
        snprintf(err, errlen, "%s", bad);
    return bad ? -1 : 0;
}
