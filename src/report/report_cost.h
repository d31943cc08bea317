/* `truecost cost`: a run's or a group's cost per million output tokens
 * under a profile, with every input and where it came from, each term and
 * the energy figures, as text or one JSON document. */
#ifndef TC_REPORT_COST_H
#define TC_REPORT_COST_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/cost.h"
#include "analysis/figures.h"
#include "core/tc_error.h"

/* {run_id, label, simulated, profile, currency, cloud,
 * cost_per_million_tokens, cost_per_month, tokens_per_month, terms,
 * term_notes, inputs, energy, group (a group only: name, run_ids,
 * throughput_mean, throughput_cv, noisy), cloud_busy_cost_per_million_tokens
 * (cloud only), demand (with [workload]), warnings} of the cost r of the
 * set under profile p, s being the set's summary. A new reference; NULL
 * when out of memory. */
json_t *tc_report_cost_json(const tc_runset *set, const tc_cost_profile *p, const tc_set_summary *s,
                            const tc_cost_result *r);

/* The same for people, the warnings last. TC_OK or TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_cost_text(FILE *out, const tc_runset *set, const tc_cost_profile *p,
                                         const tc_set_summary *s, const tc_cost_result *r);

#endif
