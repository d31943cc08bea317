/* Percentile bootstrap confidence intervals for a figure derived from two
 * independent samples (run A and run B), seeded so that the same inputs
 * and seed always give the same interval (Efron & Tibshirani, "An
 * Introduction to the Bootstrap", ch. 13).
 *
 * A sample is a "ratio estimator": its statistic is
 *
 *     stat = scale * sum(num[i]) / sum(den[i])
 *
 * which covers both uses:
 *   - run level (groups of repeated runs): num = each run's throughput,
 *     den = 1, scale = 1: the mean throughput of the runs;
 *   - request level (one run): num = a request's output tokens, den = its
 *     E2E seconds, scale = measured throughput / (sum num / sum den), so
 *     that the statistic of the sample itself is the measured throughput
 *     and a resample moves it as the requests' own rates vary.
 *
 * Each resample draws n indices with replacement from A and from B (from
 * its own random stream, seeded by the seed and its number, so the result
 * does not depend on how many threads drew it), computes both statistics, and maps them through a
 * caller function (a throughput ratio, a cost ratio); the interval is the (1-level)/2 and
 * (1+level)/2 percentiles of the mapped values (tc_stats_percentile). */
#ifndef TC_BOOTSTRAP_H
#define TC_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "core/tc_rng.h"

/* The default and least number of resamples, and the default seed. */
#define TC_BOOT_RESAMPLES 10000
#define TC_BOOT_MIN_RESAMPLES 1000
#define TC_BOOT_SEED 20261129u

typedef struct tc_boot_sample {
    const double *num, *den; /* n values each; borrowed */
    size_t n;                /* >= 1 */
    double scale;            /* > 0 */
} tc_boot_sample;

/* The statistic of the whole sample; NaN when sum(den) is 0. */
double tc_boot_stat(const tc_boot_sample *s);

/* Percentile q (0..100) of the finite values among v[0..n), as
 * tc_stats_percentile reads it; moves them to the front and sorts them
 * in place. NaN when none is finite. The one reading of a bootstrap's
 * resampled values into an interval. */
double tc_boot_percentile(double *v, size_t n, double q);

/* The statistic of one resample of s drawn with rng. */
double tc_boot_resample(const tc_boot_sample *s, tc_rng *rng);

/* Maps the two statistics to the figure of interest (e.g. b / a); a
 * non-finite result drops that resample. */
typedef double (*tc_boot_map)(double stat_a, double stat_b, void *ctx);

typedef struct tc_boot_ci {
    double point;  /* map(stat(a), stat(b)) */
    double lo, hi; /* the interval */
    double level;  /* e.g. 0.95 */
    int resamples; /* asked for */
    int used;      /* with a finite mapped value */
    uint64_t seed;
} tc_boot_ci;

/* Computes the interval of map over `resamples` resamples (at least
 * TC_BOOT_MIN_RESAMPLES) at `level` (0.5..0.999) into *out. Returns TC_OK;
 * TC_ERR_INVALID for bad arguments, an empty sample, a point figure that is
 * not finite, or fewer than 90% of resamples giving a finite value (err
 * says which); TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_boot_ci_compute(const tc_boot_sample *a, const tc_boot_sample *b,
                                        tc_boot_map map, void *ctx, int resamples, uint64_t seed,
                                        double level, tc_boot_ci *out, char *err, size_t errlen);

/* The two steps of tc_boot_ci_compute, for several figures of the same
 * resamples (a throughput ratio and a cost ratio): draw once, then map.
 * tc_boot_draw fills sa[] and sb[] (`resamples` each) with the statistics
 * of a's and b's resamples, in the order tc_boot_ci_compute draws them.
 * tc_boot_ci_from_draws computes the interval of map over them; its
 * arguments and errors are those of tc_boot_ci_compute (`seed` is only
 * recorded). */
void tc_boot_draw(const tc_boot_sample *a, const tc_boot_sample *b, int resamples, uint64_t seed,
                  double *sa, double *sb);
TC_MUST_CHECK tc_err tc_boot_ci_from_draws(const tc_boot_sample *a, const tc_boot_sample *b,
                                           const double *sa, const double *sb, int resamples,
                                           uint64_t seed, tc_boot_map map, void *ctx, double level,
                                           tc_boot_ci *out, char *err, size_t errlen);

/* b / a, the map for "ratio B/A" of a figure. */
double tc_boot_ratio_b_over_a(double stat_a, double stat_b, void *ctx);

/* Verdict on a claim "the figure is at least `claim`": SUPPORTED when the
 * whole interval lies at or above it, REFUTED when the whole interval lies
 * below it, else INCONCLUSIVE. */
typedef enum tc_claim_verdict {
    TC_CLAIM_INCONCLUSIVE = 0,
    TC_CLAIM_SUPPORTED,
    TC_CLAIM_REFUTED
} tc_claim_verdict;

tc_claim_verdict tc_claim_judge(const tc_boot_ci *ci, double claim);

/* "supported", "refuted", "inconclusive". */
const char *tc_claim_verdict_name(tc_claim_verdict v);

#endif
