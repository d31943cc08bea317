/* Cost per million output tokens of a platform: a profile's money inputs
 * applied to a run's measured throughput and power (seeds 003, 1.3):
 *
 *   cost per 1M tokens = (hardware + electricity + operations) per month
 *                        / effective output tokens per month * 1e6
 *   effective tokens   = output tokens/s * utilization * TC_COST_MONTH_S
 *   hardware           = price * (1 - residual_fraction) / amortize_months
 *   electricity        = (busy W * u + idle W * (1 - u)) * TC_COST_MONTH_H
 *                        * pue / 1000 * price_per_kwh
 *   operations         = hours_per_month * hourly_rate
 *                        + adaptation_days * day_rate / amortize_months
 *
 * A cloud profile rents the device for the whole month instead: the
 * "hardware" term is price_per_hour * TC_COST_MONTH_H and there is no
 * electricity term (it is in the hourly price).
 *
 * Every input is recorded with its value and source. An input that is
 * needed but unavailable (no busy power measured and none in the profile)
 * makes its term and the total unavailable, never 0. */
#ifndef TC_COST_H
#define TC_COST_H

#include "analysis/cost_profile.h"
#include "core/tc_error.h"

/* A month is the mean Gregorian month: 365.2425 / 12 = 30.436875 days,
 * rounded to 30.44 days = 730.56 hours = 2,630,016 seconds. */
#define TC_COST_MONTH_DAYS 30.44
#define TC_COST_MONTH_H (TC_COST_MONTH_DAYS * 24.0)
#define TC_COST_MONTH_S (TC_COST_MONTH_DAYS * 86400.0)

/* What the run measured. Watts are summed over the run's sampled devices. */
typedef struct tc_cost_measured {
    double output_tokens_per_s; /* > 0 */
    int has_power;
    double busy_power_w; /* mean power over the measured window */
    int has_idle;
    double idle_power_w;            /* the idle baseline before the first request */
    double joules_per_output_token; /* measured device energy / output tokens; 0 = unknown */
    tc_power_scope power_scope;     /* what the measured power covers (the devices sampled) */
    int steady; /* throughput and power are the steady-state window's (run_window.h) */
} tc_cost_measured;

typedef enum tc_cost_source {
    TC_COST_UNAVAILABLE = 0, /* needed, but neither measured nor given */
    TC_COST_MEASURED,
    TC_COST_PROFILE,
    TC_COST_DEFAULT
} tc_cost_source;

/* "unavailable", "measured", "profile", "default". */
const char *tc_cost_source_name(tc_cost_source s);

typedef struct tc_cost_input {
    const char *name; /* e.g. "busy_watts"; a static string */
    const char *unit; /* e.g. "W"; a static string */
    double value;     /* meaningless when source is TC_COST_UNAVAILABLE */
    tc_cost_source source;
} tc_cost_input;

typedef struct tc_cost_term {
    int available; /* 0: an input it needs is unavailable (see why) */
    int included;  /* 1: part of another term (cloud electricity); value 0 */
    double value;  /* currency units per month */
    char why[160]; /* when unavailable or included: the reason */
} tc_cost_term;

#define TC_COST_MAX_INPUTS 16

typedef struct tc_cost_result {
    int is_cloud;
    tc_cost_input inputs[TC_COST_MAX_INPUTS];
    int n_inputs;

    double tokens_per_month; /* effective, one device */
    tc_cost_term hardware, electricity, operations;
    int has_cost;                   /* every term available */
    double per_month;               /* the sum of the terms */
    double cost_per_million_tokens; /* valid when has_cost */
    /* Cloud only: price_per_hour / output tokens per busy hour * 1e6. */
    double cloud_busy_cost_per_million_tokens;

    /* Device energy, without PUE; valid when has_energy (a busy power is
     * known, measured or given). */
    int has_energy;
    double joules_per_output_token, tokens_per_kwh, tokens_per_s_per_watt;
    tc_cost_source energy_source;
    /* What the busy power priced covers: the profile's [power] scope when
     * it gave busy_watts, else the devices the run sampled. */
    tc_power_scope power_scope;
    int steady; /* copied from the measured inputs */

    /* With [workload] tokens_per_month: devices = ceil(demand / tokens per
     * device-month), and what they cost per month (when has_cost). */
    int has_demand;
    double demand_tokens_per_month;
    long long devices_needed;
    double fleet_per_month;
} tc_cost_result;

/* Computes the cost of profile `p` on the run figures `m` into *out.
 * Returns TC_OK, or TC_ERR_INVALID for NULL arguments or a throughput that
 * is not a positive number (no completed request: no cost per token). */
TC_MUST_CHECK tc_err tc_cost_compute(const tc_cost_profile *p, const tc_cost_measured *m,
                                     tc_cost_result *out);

/* The input named `name` in *r, or NULL. */
const tc_cost_input *tc_cost_input_get(const tc_cost_result *r, const char *name);

#endif
