/* Ecosystem lock-in: the one-time cost of moving a workload from an
 * incumbent platform (e.g. NVIDIA/CUDA) to an alternative (e.g. AMD/ROCm),
 * weighed against what the alternative saves (seed 000, section 4.5):
 *
 *   lock-in = (T_env + T_op + T_perf + T_stab + T_learn) x C_day
 *             + R_risk x C_incident + dTalent x C_hire
 *
 * The inputs come from an assessment file (INI; README, "truecost lockin"):
 *
 *   [effort]   environment, operators, performance, stability, learning:
 *              person-days as LOW..HIGH, LOW..MODE..HIGH or one number
 *   [rates]    day_cost: currency per person-day (C_day)
 *   [risk]     probability 0..1 that the critical path is blocked (R_risk),
 *              incident_cost: what one such block costs (C_incident)
 *   [talent]   premium (dTalent): EXTRA HIRES the alternative needs because
 *              its skills are scarce, in hire-equivalents (0.5 = half a
 *              recruitment's cost more, 1 = one more engineer to find); a
 *              number or a range. hire_cost: currency to recruit one (C_hire)
 *   [hardware] units, price_incumbent, price_alternative (per unit): the
 *              saving = units x (price_incumbent - price_alternative)
 *   [horizon]  months to weigh the move over; optional tokens_per_month
 *   [decision] declared evidence for `truecost decide`: profiler_skill and
 *              fallback_path (yes|no), soak_passed (yes|no|unknown)
 *
 * Every section and key is required except tokens_per_month and [decision]:
 * a zero must be written as 0, so that no term is forgotten.
 *
 * The model:
 * - Point estimate: each range at its mode, or at its midpoint when given
 *   as LOW..HIGH; risk at its expectation, probability x incident_cost.
 * - Monte Carlo: each range a triangular distribution (LOW..HIGH is the
 *   symmetric triangle with mode = midpoint: a range is a belief that the
 *   middle is likelier than the ends, which a uniform would not say), the
 *   risk a Bernoulli(probability) event costing incident_cost. Every sample
 *   draws every input in a fixed order, even fixed ones, so that changing
 *   one input (an override) leaves the draws of the others unchanged.
 * - Sensitivity: each input with a range swept from LOW to HIGH with the
 *   others at their point values; swing = |total(high) - total(low)|. The
 *   risk is swept as "no incident" to "incident" (swing = incident_cost)
 *   when 0 < probability < 1; a fixed input has no swing and is left out.
 * - Break-even: months until the running-cost saving per month repays the
 *   lock-in cost, lock-in / saving, per sample; "never" when the saving per
 *   month is <= 0. Net benefit over the horizon = hardware saving + running
 *   saving x months - lock-in, per sample.
 *
 * Parsing is strict like cost profiles: a typo must never silently drop an
 * input. Messages read "NAME:LINE: [section] key: what is wrong; expected
 * UNIT". */
#ifndef TC_LOCKIN_H
#define TC_LOCKIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

/* The five effort items of the formula, in its order. */
typedef enum tc_lockin_item {
    TC_LOCKIN_ENVIRONMENT = 0, /* T_env: drivers, runtime, framework versions */
    TC_LOCKIN_OPERATORS,       /* T_op: replacing and validating missing operators */
    TC_LOCKIN_PERFORMANCE,     /* T_perf: profiling and tuning hot kernels */
    TC_LOCKIN_STABILITY,       /* T_stab: chasing crashes in long runs */
    TC_LOCKIN_LEARNING,        /* T_learn: documentation and community learning */
    TC_LOCKIN_N_ITEMS
} tc_lockin_item;

/* The key of an item in [effort] ("environment", ...); "?" out of range. */
const char *tc_lockin_item_name(tc_lockin_item item);

/* A value that may be uncertain: low <= mode <= high. A single number has
 * low == mode == high. */
typedef struct tc_lockin_range {
    int valid; /* 0: not given */
    double low, mode, high;
    int has_mode;    /* 1: given as LOW..MODE..HIGH; 0: mode is the midpoint */
    int line;        /* where it was given; 0 when set by an override */
    char source[96]; /* "assessment", or the override's label */
} tc_lockin_range;

/* Parses "LOW..HIGH", "LOW..MODE..HIGH" or "X" (plain non-negative decimal
 * numbers; spaces around ".." allowed) into *out (source left empty, line
 * 0). Returns TC_OK, or TC_ERR_PARSE with what is wrong in err (no file or
 * key: the caller adds them). */
TC_MUST_CHECK tc_err tc_lockin_range_parse(const char *text, tc_lockin_range *out, char *err,
                                           size_t errlen);

/* Declared answers of [decision]. */
typedef enum tc_lockin_answer {
    TC_LOCKIN_NOT_GIVEN = 0,
    TC_LOCKIN_YES,
    TC_LOCKIN_NO,
    TC_LOCKIN_UNKNOWN /* soak_passed only: declared as not known yet */
} tc_lockin_answer;

/* "not given", "yes", "no", "unknown". */
const char *tc_lockin_answer_name(tc_lockin_answer a);

/* One plain number of the file. */
typedef struct tc_lockin_value {
    int valid;
    double value;
    int line;
} tc_lockin_value;

typedef struct tc_lockin {
    char name[256];                            /* the file name (or label) used in messages */
    char currency[16];                         /* a label only; "USD" unless the file says */
    tc_lockin_range effort[TC_LOCKIN_N_ITEMS]; /* person-days */
    /* [effort] performance_per_kernel (optional): person-days to tune one kernel of a
     * profiler's tuning list (lockin --kernels), instead of the list's */
    tc_lockin_range kernel_effort;
    tc_lockin_value day_cost;                           /* currency per person-day */
    tc_lockin_value probability;                        /* 0..1 */
    tc_lockin_value incident_cost;                      /* currency per incident */
    tc_lockin_range premium;                            /* extra hires, hire-equivalents */
    tc_lockin_value hire_cost;                          /* currency per hire */
    tc_lockin_value units;                              /* whole cards (or boxes) > 0 */
    tc_lockin_value price_incumbent, price_alternative; /* currency per unit */
    tc_lockin_value months;                             /* > 0 */
    tc_lockin_value tokens_per_month;                   /* optional, > 0 */
    tc_lockin_answer profiler_skill, fallback_path, soak_passed;
    int profiler_skill_line, fallback_path_line, soak_passed_line;
} tc_lockin;

/* Parses `len` bytes of INI text; `name` (the file name) starts every
 * message. Fills *out (zeroed first; zeroed again on failure). Returns
 * TC_OK, TC_ERR_PARSE (syntax, a bad number or range, a value out of range,
 * an unknown section or key, a key given twice, a missing required key;
 * err says "NAME:LINE: [section] key: ...; expected ..."), TC_ERR_INVALID
 * (NULL arguments) or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_lockin_parse(const char *name, const char *text, size_t len, tc_lockin *out,
                                     char *err, size_t errlen);

/* Reads the file at `path` (at most 1 MiB) and parses it as above, naming
 * it by its path. TC_ERR_IO when it cannot be read. */
TC_MUST_CHECK tc_err tc_lockin_load(const char *path, tc_lockin *out, char *err, size_t errlen);

/* The point value of a range: its mode, or its midpoint when it has none. */
double tc_lockin_range_point(const tc_lockin_range *r);

/* Hardware saving = units x (price_incumbent - price_alternative); negative
 * when the alternative costs more. */
double tc_lockin_hardware_saving(const tc_lockin *a);

/* ---- evidence that replaces a guess ------------------------------------ */

/* The measured performance gap, from the throughput ratio alternative /
 * incumbent (seed 000, section 5.3): */
typedef enum tc_lockin_perf_class {
    TC_LOCKIN_PERF_NONE = 0, /* not measured */
    TC_LOCKIN_PERF_OPTIONAL, /* ratio >= 0.8 (within 20%): T_perf at its low end */
    TC_LOCKIN_PERF_NEEDED,   /* 0.5 <= ratio < 0.8 (20-50%): T_perf range kept */
    TC_LOCKIN_PERF_SUSPECT   /* ratio < 0.5 (over 50%): range kept, flagged */
} tc_lockin_perf_class;

/* The class of a ratio (> 0 and finite; otherwise TC_LOCKIN_PERF_NONE). A
 * gap of exactly 20% is within 20%; exactly 50% is "tuning needed". */
tc_lockin_perf_class tc_lockin_perf_classify(double ratio);

/* "not measured", "tuning optional", "tuning needed", "suspect operator
 * fallback before blaming the hardware". */
const char *tc_lockin_perf_class_name(tc_lockin_perf_class c);

/* What the measurements say, from options or from files and stored runs
 * (assess/evidence.h). Zero-initialised = no evidence. The labels say
 * where a value came from ("--gaps-top", "gap table gaps.csv", "runs 3 vs
 * 5") and may be empty. */
typedef struct tc_lockin_overrides {
    int has_operators; /* replace T_op with this range (from a gap table) */
    double op_low, op_mode, op_high;
    char op_source[96];
    int has_perf_days; /* replace T_perf with this range (a profiler's tuning list) */
    double perf_low, perf_mode, perf_high;
    char perf_days_source[96];
    int has_perf_ratio; /* measured throughput alternative / incumbent, > 0 */
    double perf_ratio;
    char perf_source[96];
    int has_running_saving;          /* running cost incumbent - alternative, per month */
    double running_saving_per_month; /* currency; negative: the alternative costs more */
    char running_source[96];
    /* The hardware saving measured instead of units x price gap: the
     * capex of the incumbent's fleet - the alternative's, at one
     * interactivity (frontier --demand). */
    int has_hardware_saving;
    double hardware_saving;
    char hardware_source[160];
    /* The risk's probability measured instead of the assessment's: a
     * soak's outages per day (at most 1), labelled where it came from. */
    int has_risk;
    double risk_probability;
    char risk_source[160];
    int simulated; /* 1: some evidence was measured on a SIMULATED server */
} tc_lockin_overrides;

/* Replaces T_op with low..mode..high (0 <= low <= mode <= high, finite),
 * labelled `source` (may be NULL). Returns TC_OK or TC_ERR_INVALID (a
 * says so in err; *a unchanged). */
TC_MUST_CHECK tc_err tc_lockin_set_operators(tc_lockin *a, double low, double mode, double high,
                                             const char *source, char *err, size_t errlen);

/* The same for T_perf (a profiler's tuning list, lockin --kernels). */
TC_MUST_CHECK tc_err tc_lockin_set_performance(tc_lockin *a, double low, double mode, double high,
                                               const char *source, char *err, size_t errlen);

/* Classifies `ratio` and, when the gap is within 20%, fixes T_perf at its
 * low end (labelled `source`); other classes keep the range. Stores the
 * class in *out (may be NULL). TC_ERR_INVALID when ratio is not > 0 and
 * finite (*a unchanged). */
TC_MUST_CHECK tc_err tc_lockin_apply_perf_ratio(tc_lockin *a, double ratio, const char *source,
                                                tc_lockin_perf_class *out, char *err,
                                                size_t errlen);

/* ---- results ------------------------------------------------------------ */

/* The terms of the formula at the point values. */
typedef struct tc_lockin_terms {
    double item_days[TC_LOCKIN_N_ITEMS];
    double effort_days; /* the sum of the items */
    double effort_cost; /* effort_days x day_cost */
    double risk_cost;   /* probability x incident_cost (the expectation) */
    double talent_cost; /* premium x hire_cost */
    double total;
} tc_lockin_terms;

/* The point estimate of *a. */
void tc_lockin_point(const tc_lockin *a, tc_lockin_terms *out);

#define TC_LOCKIN_MAX_SWINGS (TC_LOCKIN_N_ITEMS + 2)

typedef struct tc_lockin_swing {
    const char *input; /* an item name, "risk" or "talent"; static */
    double low_total, high_total, swing;
} tc_lockin_swing;

/* The sensitivity list of *a, largest swing first (ties in the formula's
 * order) into out[TC_LOCKIN_MAX_SWINGS]. Returns how many. */
int tc_lockin_sensitivity(const tc_lockin *a, tc_lockin_swing *out);

typedef struct tc_lockin_quantiles {
    double p10, p50, p90;
} tc_lockin_quantiles;

#define TC_LOCKIN_DEFAULT_SAMPLES 100000
#define TC_LOCKIN_MAX_SAMPLES 10000000

typedef struct tc_lockin_result {
    tc_lockin inputs; /* the assessment after the overrides */
    tc_lockin_terms point;
    double hardware_saving;
    char hardware_source[160]; /* "" = the assessment's units x price gap */
    tc_lockin_swing sensitivity[TC_LOCKIN_MAX_SWINGS];
    int n_sensitivity;

    /* Monte Carlo over `samples` draws from `seed`. */
    size_t samples;
    uint64_t seed;
    double mean, min, max;
    tc_lockin_quantiles total;         /* P10/P50/P90 of the lock-in cost */
    double probability_exceeds_saving; /* share of samples > hardware_saving */

    /* Running-cost saving per month: given (has_running_saving) or 0. */
    int has_running_saving;
    double running_saving_per_month;
    /* Break-even (has_running_saving only): never when the saving is <= 0;
     * else months of running saving to repay the lock-in cost, and the same
     * after the hardware saving has paid its part (0 when it covers all). */
    int break_even_never;
    tc_lockin_quantiles break_even_months, break_even_months_after_hardware;
    /* Net benefit over inputs.months: hardware saving + running saving x
     * months - lock-in (running saving 0 when not given). */
    tc_lockin_quantiles net_benefit;
    double probability_net_positive;

    tc_lockin_perf_class perf_class; /* TC_LOCKIN_PERF_NONE: not measured */
    double perf_ratio;

    double *sorted_totals; /* `samples` lock-in costs, ascending; owned */
} tc_lockin_result;

/* Copies *a, applies *o (may be NULL: none), and computes everything above
 * with `samples` draws (1..TC_LOCKIN_MAX_SAMPLES) from `seed`. On TC_OK the
 * caller frees *out with tc_lockin_result_free. TC_ERR_INVALID (a bad
 * override or sample count, detail in err) or TC_ERR_NOMEM leave *out
 * zeroed. */
TC_MUST_CHECK tc_err tc_lockin_evaluate(const tc_lockin *a, const tc_lockin_overrides *o,
                                        size_t samples, uint64_t seed, tc_lockin_result *out,
                                        char *err, size_t errlen);

/* Frees what *r owns and zeroes it; accepts NULL. */
void tc_lockin_result_free(tc_lockin_result *r);

/* One plain sentence reading the result (no newline) into buf. */
void tc_lockin_reading(const tc_lockin_result *r, char *buf, size_t len);

#endif
