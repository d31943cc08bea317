/* The figures of one run, computed on read from its request records
 * (PROTOCOLS.md, "Defining the figures").
 *
 * Warm-up requests are left out of every figure and only counted. Of the
 * measured requests, the failed ones are counted by kind and left out of the
 * latency and token figures; duration spans every measured request. */
#ifndef TC_RUN_METRICS_H
#define TC_RUN_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/pooled.h"
#include "analysis/run_window.h"
#include "analysis/slo.h"
#include "analysis/stats.h"
#include "record/record.h"
#include "core/tc_error.h"

typedef struct tc_run_counts {
    int64_t measured;  /* requests that are not warm-up */
    int64_t completed; /* measured with error TC_REQ_OK */
    int64_t failed;    /* measured - completed */
    int64_t warmup;    /* warm-up requests, in no other figure */
    /* Measured requests sent once more on a fresh connection after a
     * kept-alive one died before any response byte (record.h: retried);
     * counted as what their second attempt did, not as failures. */
    int64_t retried;
} tc_run_counts;

/* Every per-request sample behind the summaries, sorted ascending; kept
 * for charts, histograms and SLO checks. Owned by the tc_run_metrics. The
 * pooled ITLs are not kept: a run holds hundreds of millions of them. */
typedef struct tc_run_samples {
    tc_dvec ttft_ms, tpot_ms, e2e_ms;
    tc_dvec decode_tps;        /* client-measured, per request */
    tc_dvec server_decode_tps; /* server-reported, per request */
    tc_dvec schedule_lag_ms;   /* open loop: per measured request */
} tc_run_samples;

/* An open loop whose schedule lag p99 is above this was not sent as
 * scheduled: the client could not keep up (or --max-concurrency was full). */
#define TC_SCHEDULE_LAG_LIMIT_MS 1.0

typedef struct tc_run_metrics {
    int simulated; /* copied from the run: the server was truecost sim */
    int open_loop; /* the run sent on an arrival schedule (run->rate > 0) */
    tc_run_counts requests;
    int64_t errors[TC_REQ_ERROR_COUNT]; /* failed measured requests by kind; [TC_REQ_OK] = 0 */

    /* Milliseconds. TTFT, TPOT and E2E: one sample per completed request
     * that defines it (tc_req_ttft_ns etc.); ITL: every gap between
     * consecutive text chunks of every completed request, pooled. */
    tc_summary ttft_ms, itl_ms, tpot_ms, e2e_ms;

    /* Open loop: how late each measured request (failed ones too) went out,
     * send - intended time, ms; no samples in a closed loop. TTFT and E2E
     * count from the intended time, so they include it. */
    tc_summary schedule_lag_ms;

    /* Client-measured decode speed per completed request:
     * (output tokens - 1) / (E2E - TTFT), tokens/s; needs 2+ tokens. */
    tc_summary decode_tps;

    /* Server-reported decode speed per completed request, as the seeds'
     * script computes it: Ollama eval_count / eval_duration * 1e9 when
     * eval_duration > 0, else llama.cpp timings.predicted_per_second when
     * predicted_ms > 0. has_server_decode is 0 when no request had one. */
    int has_server_decode;
    tc_summary server_decode_tps;

    /* First send -> last completion (or failure) of the measured requests;
     * has_duration is 0 when there is none (no measured request ended), and
     * then the throughputs are undefined too. */
    int has_duration;
    double duration_s;
    double requests_per_s;      /* completed / duration */
    double output_tokens_per_s; /* sum of completed output tokens / duration */
    /* (output + prompt) / duration; NAN unless has_prompt_tokens too. */
    double total_tokens_per_s;

    int64_t output_tokens; /* sum over completed requests */
    /* Sum over completed requests, valid only when has_prompt_tokens: a
     * request whose server gave no prompt count (source TC_TOKENS_NONE,
     * e.g. an older Ollama on a cached prompt) makes the total unknown,
     * since a partial sum would pass for the whole; it is then 0 and
     * prompt_missing says how many had none. */
    int has_prompt_tokens;
    int64_t prompt_tokens;
    int64_t prompt_missing;
    /* Where the output counts came from: the one source every completed
     * request agrees on, or mixed = 1. TC_TOKENS_NONE with no completed.
     * The same for the prompt counts. */
    tc_token_source token_source;
    int token_source_mixed;
    tc_token_source prompt_source;
    int prompt_source_mixed;

    /* The steady-state window (run_window.h) and what went through it;
     * window.has_window 0 when the run reached none (or list_only). */
    tc_steady window;

    /* Goodput under the run's own SLO (run->slo), when it was given one. */
    int has_slo;
    tc_slo slo;
    tc_goodput goodput;

    tc_run_samples samples;

    /* Internal to the incremental form below. */
    tc_pooled itl;
    int pass, itl_more, window_more;
    int list_only;
    int has_send, has_end;
    int64_t first_send, last_end; /* of the measured requests */
    int has_any_send;
    int64_t first_send_any; /* of any request, warm-up included */
} tc_run_metrics;

/* Computes the figures of `n` records of `run` (run may be NULL: not
 * simulated) into *out, which the caller releases with
 * tc_run_metrics_free. Returns TC_OK, TC_ERR_INVALID (out NULL, or recs
 * NULL with n > 0) or TC_ERR_NOMEM; on error *out is left empty. */
TC_MUST_CHECK tc_err tc_run_metrics_compute(const tc_run_info *run, const tc_req_record *recs,
                                            size_t n, tc_run_metrics *out);

/* The same, one record at a time (records read from the store as a
 * stream): begin, add each record in order, end. Memory grows with the
 * requests, never with their chunks: past `keep` inter-token gaps
 * (tc_pooled), tc_run_metrics_end sets *again and the same records must be
 * added once more, in the same order, then end called again, until *again
 * is 0 (two or three passes; the figures are the same as in one).
 *
 * With list_only, only what run lists show is gathered (counts, tokens,
 * duration, throughputs and the TTFT summary; the other summaries stay
 * empty) and one pass is enough; the records may then carry just their
 * first chunk. tc_run_metrics_add and _end return TC_OK or TC_ERR_NOMEM;
 * free with tc_run_metrics_free either way. keep 0: TC_POOLED_KEEP_DEFAULT. */
void tc_run_metrics_begin(tc_run_metrics *out, const tc_run_info *run, int list_only, size_t keep);
TC_MUST_CHECK tc_err tc_run_metrics_add(tc_run_metrics *m, const tc_req_record *r);
TC_MUST_CHECK tc_err tc_run_metrics_end(tc_run_metrics *m, int *again);

/* Frees the samples and zeroes *m; accepts NULL. */
void tc_run_metrics_free(tc_run_metrics *m);

/* 1 when an open loop's schedule lag p99 is above TC_SCHEDULE_LAG_LIMIT_MS. */
int tc_run_metrics_lagging(const tc_run_metrics *m);

/* Failed measured requests over measured ones; 0 when none was measured. */
double tc_run_metrics_error_rate(const tc_run_metrics *m);

/* The token source as reports name it: tc_token_source_name() of the
 * source every completed request agrees on ("usage", "server", "chunks",
 * "none"), "mixed", or NULL when there is no completed request. */
const char *tc_run_metrics_token_source(const tc_run_metrics *m);

/* The same in words for people: "server usage", "server count",
 * "chunk count", "mixed", or "unknown" (no count, or no completed request). */
const char *tc_run_metrics_token_source_text(const tc_run_metrics *m);

/* The prompt counts' source, named as tc_run_metrics_token_source names
 * the output's: "none" when no completed request had one, "mixed" when
 * they differ (prompt_missing counts those with none), NULL with no
 * completed request. */
const char *tc_run_metrics_prompt_source(const tc_run_metrics *m);

#endif
