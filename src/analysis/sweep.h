/* A load sweep: one stored run per operating point (a concurrency of a
 * closed loop, or a rate of an open one), read as throughput and latency
 * against offered load, the way InferenceX, GuideLLM and `vllm bench
 * serve` read them, with the energy on each point's steady-state window.
 *
 * Per point: offered load; achieved requests/s and output and total
 * tokens/s over the steady-state window (the whole run when it reached
 * none), both counting the same requests (each its share of chunks inside
 * the window, tc_steady_share), so requests/s x mean output tokens is
 * tokens/s; tokens/s per GPU; interactivity = 1000 / median TPOT (tokens/s
 * per user); TTFT and TPOT p50/p99; goodput (over the same window as
 * requests/s, so never above it) and attainment under the run's SLO; watts and J per output token
 * over the window. */
#ifndef TC_SWEEP_H
#define TC_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/figures.h"

/* A point stops the sweep going up when more than this fraction of its
 * measured requests failed, */
#define TC_SWEEP_MAX_ERROR_RATE 0.05
/* or (rates) when it achieved less than this share of the rate its
 * arrivals offered, twice in a row: the server is saturated. */
#define TC_SWEEP_SATURATED 0.9

typedef struct tc_sweep_point {
    int64_t run_id;
    tc_run_status status;
    int complete; /* status is complete: an interrupted (or killed) point's figures are
                     partial, left out of the knee and the frontier */
    int simulated;
    int open_loop;   /* offered as a rate; else as a concurrency */
    int concurrency; /* closed loop */
    double rate;     /* open loop, requests/s */
    int steady;      /* the figures are the steady-state window's */
    /* Open loop: the rate its schedule actually offered (Poisson arrivals
     * stray from the nominal rate); requests/s, what it achieved over the
     * window, falls behind the arrivals only when the server does. */
    double arrivals_per_s;
    int has_rates;
    double requests_per_s, output_tokens_per_s;
    int has_total;
    double total_tokens_per_s;
    int gpus; /* given, else the GPUs its telemetry saw, else 1 */
    double tokens_per_s_per_gpu;
    int has_interactivity;
    double interactivity; /* 1000 / TPOT p50 */
    int has_ttft, has_tpot;
    double ttft_p50, ttft_p99, tpot_p50, tpot_p99; /* ms */
    int has_goodput;
    double good_requests_per_s, good_output_tokens_per_s, attainment;
    int has_avg_power, has_jpt;
    double avg_power_w, joules_per_output_token;
    int64_t measured, failed;
    int64_t retried; /* sent again on a fresh connection (run_metrics.h); not failures */
    double error_rate;
} tc_sweep_point;

/* The point's goodput from m (after its throughput is set): over the same
 * span as its requests/s, and never above it (asserted). */
void tc_sweep_point_goodput(const tc_run_metrics *m, tc_sweep_point *p);

/* The first point that did not complete ("c=8 (run 12, interrupted)")
 * into buf, returned; NULL when every point completed. */
const char *tc_sweep_incomplete_text(const tc_sweep_point *p, size_t n, char *buf, size_t len);

/* "c=8" or "20/s": the point's offered load. */
const char *tc_sweep_offered_text(const tc_sweep_point *p, char *buf, size_t len);

/* The point of one run's figures (loaded at any depth). */
void tc_sweep_point_of(const tc_figures *f, tc_sweep_point *out);

/* The knee: the last point before goodput falls, or before TTFT or TPOT
 * p99 more than doubles, walking up the offered load over the complete
 * points. Its index, or -1 when neither happens. *why (may be NULL) says
 * which. */
int tc_sweep_knee(const tc_sweep_point *p, size_t n, const char **why);

typedef enum tc_sweep_stop {
    TC_SWEEP_GO = 0,
    TC_SWEEP_STOP_ERRORS,   /* the last point's error rate is over the limit */
    TC_SWEEP_STOP_SATURATED /* the last two rate points fell short of their rate */
} tc_sweep_stop;

/* Whether the sweep should stop going up after the last of n points. */
tc_sweep_stop tc_sweep_should_stop(const tc_sweep_point *p, size_t n);

/* Why, in words, for a stop other than TC_SWEEP_GO (NULL for it). */
const char *tc_sweep_stop_text(tc_sweep_stop why);

/* n rates evenly spaced over [lo, hi] (GuideLLM's "auto": from the
 * synchronous rate to the maximum throughput), ascending, into out.
 * Returns n, or 0 when lo and hi give no range (hi <= lo or not finite). */
int tc_sweep_rates_between(double lo, double hi, int n, double *out);

#endif
