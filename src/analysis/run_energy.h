/* A run's energy figures, per sampled device and in total: energy over the
 * measured window (first measured send -> last measured end), power, the
 * idle baseline (samples before the first request), J/token and tokens/J. */
#ifndef TC_RUN_ENERGY_H
#define TC_RUN_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/energy.h"
#include "analysis/run_metrics.h"
#include "record/record.h"
#include "record/record.h"

typedef struct tc_run_energy_dev {
    tc_run_device dev;
    tc_energy_summary load; /* over the measured window */
    int has_idle;
    double idle_power_w;
    double joules_per_output_token, tokens_per_joule; /* 0 when the energy is not available */
} tc_run_energy_dev;

typedef struct tc_run_energy {
    int n; /* devices; 0 = the run has no telemetry */
    tc_run_energy_dev *dev;
    int has_total; /* every device's energy is known: a total of some is no total */
    int n_with_energy;
    double total_j, joules_per_output_token, tokens_per_joule;
    int64_t output_tokens;
    int steady; /* 1: read over the steady-state window, else the measured one */
} tc_run_energy;

/* When the load ran: the measured window (first measured send -> last
 * measured end; has_window 0 when there is none) and the first send of
 * any request, warm-up included (INT64_MAX when none), before which the
 * samples are the idle baseline. */
typedef struct tc_run_window {
    int has_window;
    int64_t from, to;
    int64_t first_send;
    int steady; /* the bounds are the steady-state window's */
} tc_run_window;

void tc_run_window_of_records(const tc_req_record *recs, size_t n, tc_run_window *out);
/* The same from a run's figures, stored ones included: the steady-state
 * window when the run reached one (run_window.h), else the measured one. */
void tc_run_window_of_metrics(const tc_run_metrics *m, tc_run_window *out);

/* Computes the figures over window w. `output_tokens` are the measured,
 * completed requests' output tokens. Free with tc_run_energy_free. */
TC_MUST_CHECK tc_err tc_run_energy_compute_window(const tc_run_device *devs, int n_devs,
                                                  const tc_run_sample *samples, size_t n_samples,
                                                  const tc_run_window *w, int64_t output_tokens,
                                                  tc_run_energy *out);

/* The same, the window taken from the records. */
TC_MUST_CHECK tc_err tc_run_energy_compute(const tc_run_device *devs, int n_devs,
                                           const tc_run_sample *samples, size_t n_samples,
                                           const tc_req_record *recs, size_t n_recs,
                                           int64_t output_tokens, tc_run_energy *out);

void tc_run_energy_free(tc_run_energy *e); /* accepts NULL */

#endif
