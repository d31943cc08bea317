/* The simulator's timing model: when each token of a simulated stream is
 * due. Pure functions of the parameters, so tests check them exactly.
 *
 *   prefill   = prompt_tokens / prefill_tps
 *   interval  = 1 / decode_tps * (1 + slowdown * (min(active, max_batch) - 1))
 *               * max(1, active / max_batch)                 (+ jitter)
 *   TTFT      = max(ttft_ms + prefill, prefill + step)       (+ jitter)
 *
 * `active` counts the streams in the batch at that moment: a stream holds
 * its slot from the start of its prefill to its end, so its first token
 * is paid for at the batch's rate too and the aggregate never passes
 * decode_tps * max_batch. Up to
 * max_batch of them each get decode_tps; beyond it every stream slows so
 * that the aggregate rate stays at decode_tps * max_batch, as a server whose
 * batch is full. With a batch slowdown k > 0 every further stream in the
 * batch also lengthens the step by k, as a real GPU's decode step grows with
 * its batch: a stream then sees d / (1 + k (c - 1)) tokens/s at c streams, so
 * the throughput against interactivity has a trade-off (a Pareto frontier
 * with more than one point) that tests compute by hand. Jitter adds a seeded uniform [0, jitter_ms)
 * delay to the TTFT and to every interval, so it only ever delays.
 *
 * Every generated token costs one decode step, the first one included:
 * `step` is the interval the stream gets when its request starts (the
 * active streams plus itself). The configured TTFT covers the prefill and
 * that first step; when the step is too long to fit (a slow decode, or a
 * full batch) the first token comes one step after the prefill instead.
 * The server-reported durations follow from it (tc_sim_split): prompt eval
 * = TTFT less the first step, never less than the prefill; eval = the first
 * step plus every later interval, so eval_count / eval_duration is the rate
 * the tokens were scheduled at (decode_tps, or the loaded rate), and load +
 * prompt eval + eval = total exactly. */
#ifndef TC_SIM_MODEL_H
#define TC_SIM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_rng.h"

typedef struct tc_sim_timing {
    double ttft_ms;        /* fixed part of the time to first token */
    double prefill_tps;    /* prompt tokens processed per second */
    double decode_tps;     /* tokens per second of one stream while the batch has room */
    double jitter_ms;      /* upper bound of the random extra delay; 0 = none */
    int max_batch;         /* streams decoded at full speed at once */
    double batch_slowdown; /* step lengthening per further stream in the batch; 0 = none */
    /* The decode rate decays by this % of decode_tps per minute since the
     * server started (a drifting server); 0 = steady. */
    double drift_pct_per_min;
} tc_sim_timing;

/* decode_tps `elapsed_ns` after the start, drift applied, never below 5%
 * of decode_tps. */
double tc_sim_decode_tps_at(const tc_sim_timing *t, int64_t elapsed_ns);

/* Defaults: 20 ms, 2000 prompt tokens/s, 100 tokens/s, no jitter, batch 64,
 * no batch slowdown, no drift. */
void tc_sim_timing_defaults(tc_sim_timing *t);

/* ttft_ms + prefill in nanoseconds, without jitter; at most one hour. */
int64_t tc_sim_ttft_ns(const tc_sim_timing *t, int prompt_tokens);

/* Nanoseconds of the prefill alone (prompt_tokens / prefill_tps); at most
 * one hour. */
int64_t tc_sim_prefill_ns(const tc_sim_timing *t, int prompt_tokens);

/* Nanoseconds from request start to the first token, without jitter, when
 * the stream's first decode step takes step_ns: the larger of
 * tc_sim_ttft_ns and the prefill followed by that step. */
int64_t tc_sim_first_token_ns(const tc_sim_timing *t, int prompt_tokens, int64_t step_ns);

/* Splits a request's schedule into Ollama's prompt eval and eval spans:
 * first_ns is request start -> first token (as scheduled, jitter and any
 * stall included), step_ns the first token's decode step, rest_ns first ->
 * last token. prompt_eval + eval = first_ns + rest_ns. */
void tc_sim_split(int64_t first_ns, int64_t step_ns, int64_t rest_ns, int64_t *prompt_eval_ns,
                  int64_t *eval_ns);

/* Nanoseconds between two tokens of one stream while `active` streams
 * decode, without jitter. active <= 0 counts as 1. */
int64_t tc_sim_interval_ns(const tc_sim_timing *t, int active);

/* A jitter draw in [0, jitter_ms) nanoseconds from `rng` (0 when off). */
int64_t tc_sim_jitter_ns(const tc_sim_timing *t, tc_rng *rng);

/* Checks ranges; on failure writes which parameter and why into err. */
int tc_sim_timing_validate(const tc_sim_timing *t, char *err, size_t errlen);

#endif
