/* A training run priced and two training runs compared (maths on arrays).
 *
 * Cost: the serving cost model (cost.h) with the training run's rate in
 * place of output tokens/s: a month of the platform (hardware,
 * electricity at the window's measured power, operations) over the steps
 * it would run in a month at the profile's utilization gives the cost of
 * a step; per 1,000 samples and per million training tokens follow from
 * the samples and tokens of a step.
 *
 * Comparison: B against A, each figure a ratio B/A with a percentile
 * bootstrap 95% interval over the steps (each resample draws the steady
 * window's step times of both runs with replacement; samples/s, tokens/s,
 * energy and cost per step move with the resampled mean step time, each
 * run's samples and tokens per step, power and month's cost held as
 * measured), and the seed's reading of the step-time gap. */
#ifndef TC_ANALYSIS_TRAIN_PRICE_H
#define TC_ANALYSIS_TRAIN_PRICE_H

#include "analysis/bootstrap.h"
#include "analysis/cost.h"
#include "analysis/train.h"

typedef struct tc_training_cost {
    tc_cost_result base; /* the month's terms, with steps as the "tokens" */
    int has_cost;
    double per_step, per_1k_samples, per_million_tokens; /* NaN when unknown */
} tc_training_cost;

/* Prices f under p into *out. TC_ERR_INVALID when the run has no step
 * rate (fewer than two steps after the warm-up). */
TC_MUST_CHECK tc_err tc_training_cost_compute(const tc_cost_profile *p,
                                              const tc_training_figures *f, tc_training_cost *out);

/* One side: its figures, its steady window's step times (ms), and its
 * price (NULL: no profile). */
typedef struct tc_training_side {
    const tc_training_figures *fig;
    const double *step_ms;
    size_t n;
    const tc_training_cost *cost;
} tc_training_side;

/* The figures compared, each B/A. */
enum {
    TC_TRAINING_CMP_STEP_TIME = 0,
    TC_TRAINING_CMP_SAMPLES,
    TC_TRAINING_CMP_TOKENS,
    TC_TRAINING_CMP_ENERGY, /* joules per step */
    TC_TRAINING_CMP_COST,   /* cost per step */
    TC_TRAINING_CMP_COUNT
};

/* "step_time", "samples_per_s", "tokens_per_s", "joules_per_step", "cost_per_step". */
const char *tc_training_cmp_name(int which);

typedef struct tc_training_comparison {
    int has[TC_TRAINING_CMP_COUNT]; /* 0: a side lacks the figure */
    tc_boot_ci ci[TC_TRAINING_CMP_COUNT];
    double slowdown;     /* step time B/A */
    const char *reading; /* tc_training_gap_reading of it, or "B is faster" */
} tc_training_comparison;

/* Compares b against a. TC_ERR_INVALID (with why) when a side has no step
 * time after its warm-up. */
TC_MUST_CHECK tc_err tc_training_compare(const tc_training_side *a, const tc_training_side *b,
                                         int resamples, uint64_t seed, tc_training_comparison *out,
                                         char *err, size_t errlen);

#endif
