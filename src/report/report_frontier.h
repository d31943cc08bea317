/* Cost at equal interactivity (`truecost frontier`): per target, each
 * platform's reading of its frontier with 95% intervals, the cost ratio
 * B/A and the claim; or one JSON document: {simulated, note?, profile_a,
 * profile_b, resamples, seed, targets: [{interactivity, a: {reached,
 * reading, tokens_per_s_per_gpu, tps_ci95, cost_per_million_tokens, ci95,
 * joules_per_output_token, tokens_per_mw}, b: {...} | null, ratio: {value,
 * ci95} | null, probability_b_cheaper, verdict}], claim: {value, overall}
 * | null, frontier_a: [{run_id, interactivity, tokens_per_s_per_gpu}],
 * frontier_b: [...] | null}. */
#ifndef TC_REPORT_FRONTIER_H
#define TC_REPORT_FRONTIER_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/frontier_cost.h"
#include "core/tc_error.h"

json_t *tc_report_frontier_json(const tc_frontier_side *a, const tc_frontier_side *b,
                                const tc_frontier_result *r);
TC_MUST_CHECK tc_err tc_report_frontier_text(FILE *out, const tc_frontier_side *a,
                                             const tc_frontier_side *b,
                                             const tc_frontier_result *r);

#endif
