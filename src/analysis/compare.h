/* Comparing two platforms: the samples the bootstrap resamples for each
 * side, the cost-ratio figure, repeated-run groups, the differences
 * between two runs that make a comparison change more than the hardware,
 * and the whole comparison of `truecost compare` (tc_compare_result; its
 * documents are report/report_compare.h).
 *
 * A side is one run (its completed requests are resampled: the interval
 * then covers request-to-request variation only) or a group of repeated
 * runs (each run's throughput is one value: run-to-run variation is
 * covered). */
#ifndef TC_COMPARE_H
#define TC_COMPARE_H

#include <stddef.h>

#include <jansson.h>

#include "analysis/bootstrap.h"
#include "analysis/cost.h"
#include "analysis/cost_profile.h"
#include "analysis/roofline.h"
#include "record/record.h"
#include "record/record.h"

/* A group whose throughput varies more than this (coefficient of
 * variation) is flagged: rerun it or look for noise. */
#define TC_GROUP_CV_LIMIT 0.03

typedef struct tc_group_stat {
    size_t n;
    double mean, stddev; /* sample standard deviation; 0 when n < 2 */
    double cv;           /* stddev / mean; 0 when n < 2 or mean is 0 */
    int noisy;           /* cv > TC_GROUP_CV_LIMIT */
} tc_group_stat;

/* The mean, spread and flag of n values (n may be 0: all zero). */
void tc_group_stat_compute(const double *v, size_t n, tc_group_stat *out);

typedef struct tc_compare_side {
    double *num, *den; /* owned */
    size_t n;
    double scale;
    int run_level; /* 1: values are runs; 0: values are requests */
} tc_compare_side;

/* One run's side: each completed, measured request with output tokens and
 * an E2E > 0 gives (tokens, E2E seconds); scale makes the statistic equal
 * `measured_tps`. TC_ERR_INVALID when no request qualifies or
 * measured_tps is not > 0; TC_ERR_NOMEM. Free with tc_compare_side_free. */
TC_MUST_CHECK tc_err tc_compare_side_requests(const tc_req_record *recs, size_t n,
                                              double measured_tps, tc_compare_side *out);

/* A group's side: one value per run (its output tokens/s), den 1.
 * TC_ERR_INVALID for n == 0 or a value that is not > 0. */
TC_MUST_CHECK tc_err tc_compare_side_runs(const double *tps, size_t n, tc_compare_side *out);

void tc_compare_side_free(tc_compare_side *s); /* accepts NULL */

/* The side as a bootstrap sample (borrows its arrays). */
tc_boot_sample tc_compare_side_sample(const tc_compare_side *s);

/* The two-sided 97.5% quantile of Student's t with df degrees of freedom
 * (df >= 1; from the table, interpolated in 1/df; 1.96 as df grows). */
double tc_compare_t975(double df);

/* A 95% interval of R = mean(b) / mean(a) from run-level sides (both with
 * run_level and n >= 2): exp(log R +- t(df) SE) with SE^2 = CV_a^2 / n_a +
 * CV_b^2 / n_b (the delta method on the log of each mean) and df by
 * Welch-Satterthwaite. The percentile bootstrap alone is too narrow with
 * few runs (with 3 runs, 1 resample in 27 is the lowest run thrice), so
 * compare reports the wider of the two. Returns 0 with *lo, *hi, or -1
 * when a side is not run level, has fewer than 2 runs or a mean <= 0. */
int tc_compare_welch_log_ratio(const tc_compare_side *a, const tc_compare_side *b, double *lo,
                               double *hi);

/* The context of tc_compare_cost_ratio: each side's profile and measured
 * figures; the throughput in m is replaced by the resampled statistic. */
typedef struct tc_compare_cost_ctx {
    const tc_cost_profile *pa, *pb;
    tc_cost_measured ma, mb;
} tc_compare_cost_ctx;

/* Cost per million tokens of B / that of A at throughputs tps_a, tps_b:
 * how many times more cost-efficient A is than B. NaN when either cost is
 * unavailable. A tc_boot_map. */
double tc_compare_cost_ratio(double tps_a, double tps_b, void *ctx);

/* a / b, the map for "A is X times faster than B". */
double tc_compare_a_over_b(double stat_a, double stat_b, void *ctx);

/* The differences between runs a and b (their settings, and their stored
 * fingerprints fa, fb, either may be NULL) as a new JSON array the caller
 * frees: objects {field, a, b, why, hardware}, where hardware is true for
 * the differences that are the point of a platform comparison (GPU vendor,
 * model, memory, count) and false for those that make it unclean
 * (drivers, server, model quantisation, prompts, concurrency, max tokens).
 * NULL on allocation failure. */
json_t *tc_compare_differences(const tc_run_info *a, const tc_run_info *b, json_t *fa, json_t *fb);

/* ---- the comparison of two runs or groups (compare_result.c) -------------- */

/* Declared in analysis/figures.h, which includes this header. */
typedef struct tc_runset tc_runset;
typedef struct tc_figures tc_figures;

/* One side of the comparison: a run or a group, with its figures. */
typedef struct tc_compare_platform {
    const char *label;              /* "A" or "B" (static) */
    tc_runset *set;                 /* owned */
    tc_figures *f;                  /* set->n of them; owned */
    tc_group_stat tps;              /* throughput over the runs (n = 1: that run's) */
    tc_cost_measured cost_in;       /* means over the runs */
    const tc_cost_profile *profile; /* borrowed; NULL: no cost */
    tc_cost_result cost;
    int has_cost;
    json_t *fingerprint; /* of the first run, owned; NULL when not recorded */
    tc_compare_side boot;
    /* The bandwidth bound of the first run at the side's mean decode p50,
     * and its JSON (owned; NULL gives null): set by the caller, which
     * holds the spec table. */
    tc_roofline_result roof; /* the bandwidth bound, after tc_compare_bound */
} tc_compare_platform;

typedef struct tc_compare_claim {
    int given;
    double x;
    int on_cost;     /* 1: cost ratio; 0: throughput ratio (see why) */
    const char *why; /* when not on cost: the reason, a static string */
    tc_boot_ci ci;   /* of "how many times more efficient A is than B" */
    tc_claim_verdict verdict;
} tc_compare_claim;

/* Partial runs and failed requests of each side, and "the same runs". */
#define TC_COMPARE_MAX_WARNINGS 20

typedef struct tc_compare_result {
    tc_compare_platform a, b;
    int simulated;
    const char *resampling; /* "requests", "runs" or "mixed" (static) */
    const char *method;     /* how the intervals were made, in words (static) */
    tc_boot_ci tps_ratio;   /* B/A */
    int has_cost_ratio;
    tc_boot_ci cost_ratio; /* cost B / cost A */
    tc_compare_claim claim;
    json_t *differences; /* tc_compare_differences of the first runs; owned */
    char warnings[TC_COMPARE_MAX_WARNINGS][200];
    int n_warnings;
} tc_compare_result;

/* What to compute the intervals with. */
typedef struct tc_compare_opts {
    int resamples; /* at least TC_BOOT_MIN_RESAMPLES */
    uint64_t seed;
    int has_claim;
    double claim; /* "A is X times more cost-efficient than B" */
} tc_compare_opts;

/* Both loaded sides' mean cost inputs, throughput spread, bootstrap
 * values and cost, the simulated flag and what is resampled. TC_OK;
 * TC_ERR_INVALID when a side has no throughput to compare (err: "A 'x'
 * has no completed request ..."). */
TC_MUST_CHECK tc_err tc_compare_prepare(tc_compare_result *r, char *err, size_t errlen);

/* The intervals (throughput, cost, the claim's verdict), the warnings and
 * the differences of a prepared r. TC_OK; TC_ERR_INVALID or TC_ERR_NOMEM
 * with err ("throughput ratio: ...", "out of memory"). */
/* Each side's bandwidth bound at its mean decode p50, from spec table t,
 * into its roof (what is missing is in roof.missing, not an error). */
void tc_compare_bound(tc_compare_result *r, const tc_roofline_table *t);

TC_MUST_CHECK tc_err tc_compare_finish(tc_compare_result *r, const tc_compare_opts *o, char *err,
                                       size_t errlen);

/* Frees what r owns and zeroes it; accepts NULL. */
void tc_compare_result_free(tc_compare_result *r);

/* The mean over a side's runs of a figure; *valid = 0 when a run lacks it. */
typedef double (*tc_compare_getter)(const tc_figures *f, int *valid);

/* The figures of the table and the JSON, in their order. */
typedef struct tc_compare_row {
    const char *name, *unit;
    tc_compare_getter get;
} tc_compare_row;

extern const tc_compare_row tc_compare_rows[];
extern const int tc_compare_n_rows;

/* The median client decode speed of a run (a tc_compare_getter). */
double tc_compare_get_decode_p50(const tc_figures *f, int *valid);

/* get's mean over s's runs; NaN with *valid = 0 when a run lacks it. */
double tc_compare_platform_mean(const tc_compare_platform *s, tc_compare_getter get, int *valid);

#endif
