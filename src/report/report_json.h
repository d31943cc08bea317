/* The run's figures as JSON: a contract users script against, so keys are
 * only ever added, never renamed or removed. A missing value is null,
 * never 0. The run document:
 *
 *   simulated, note       only when the run is simulated: true and
 *                         "SIMULATED: ..."
 *   run                   {id, label, status, created (UTC RFC 3339),
 *                          endpoint, api, model, simulated, concurrency,
 *                          server_version}; label and server_version are
 *                          null when unknown
 *   requests              {measured, completed, failed, warmup}
 *   duration_s            first send -> last completion, or null
 *   metrics               {ttft_ms, itl_ms, tpot_ms, e2e_ms}, each a summary
 *   throughput            {requests_per_s, output_tokens_per_s,
 *                          total_tokens_per_s (null also when the prompt
 *                          total is)}
 *   tokens                {output, prompt, source ("usage", "server",
 *                          "chunks", "none", "mixed"; null with no
 *                          completed request), prompt_source (the same
 *                          for the prompt counts), prompt_missing
 *                          (completed requests without a prompt count;
 *                          prompt is null when it is not 0)}
 *   decode_tokens_per_s   client-measured per-request decode speed, a summary
 *   server                {decode_tokens_per_s {mean, p50}}, or null when
 *                         the server reported nothing
 *   errors                {kind: count} for kinds that occurred; {} if none
 *
 * A summary is {mean, stddev, min, p50, p90, p95, p99, max}, each a number,
 * or null when there were no samples. */
#ifndef TC_REPORT_JSON_H
#define TC_REPORT_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/run_metrics.h"
#include "record/record.h"
#include "core/tc_error.h"
#include "core/tc_json.h"

/* The text of the top-level "note" of a simulated run. */
#define TC_REPORT_SIM_NOTE                                                                         \
    "SIMULATED: these figures come from truecost sim, a simulated inference server, not from "     \
    "real hardware"

/* The run document above. Returns a new reference the caller decrefs, or
 * NULL when run or m is NULL or memory ran out. */
json_t *tc_report_run_json(const tc_run_info *run, const tc_run_metrics *m);

/* An array with one object per run: {id, label, status, created, endpoint,
 * model, api, simulated, requests {measured, completed, failed, warmup},
 * output_tokens_per_s, ttft_p50_ms}. m holds one pointer per run; m itself
 * or any m[i] may be NULL (figures not computed: requests and the figures
 * are null). Returns a new reference the caller decrefs, or NULL (no
 * memory, or runs NULL with n > 0). */
json_t *tc_report_runs_json(const tc_run_info *runs, const tc_run_metrics *const *m, size_t n);

#endif
