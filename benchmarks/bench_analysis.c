/* The analysis that runs on every read: how long the lock-in Monte Carlo
 * (100,000 samples, the default) and the comparison bootstrap (10,000
 * resamples, request level, at run sizes from 100 to 20,000 requests a
 * side) take. Prints the median of 7 repetitions of each. Target: well
 * under a second each (issue 7: the Monte Carlo). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "assess/lockin.h"
#include "core/tc_rng.h"
#include "core/tc_time.h"

#define REPS 7

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, REPS, sizeof *v, cmp);
    return v[REPS / 2];
}

static const char ASSESSMENT[] = "[effort]\nenvironment = 3..5..10\noperators = 5..8..15\n"
                                 "performance = 2..4..8\nstability = 2..4..10\nlearning = 1..2..4\n"
                                 "[rates]\nday_cost = 800\n[risk]\nprobability = 0.2\n"
                                 "incident_cost = 10000\n[talent]\npremium = 0..0.5\n"
                                 "hire_cost = 20000\n[hardware]\nunits = 8\n"
                                 "price_incumbent = 1599\nprice_alternative = 999\n"
                                 "[horizon]\nmonths = 36\n";

static int bench_lockin(void)
{
    tc_lockin a;
    char err[512];
    if (tc_lockin_parse("bench.ini", ASSESSMENT, strlen(ASSESSMENT), &a, err, sizeof err) !=
        TC_OK) {
        fprintf(stderr, "bench_analysis: %s\n", err);
        return -1;
    }
    double ms[REPS];
    for (int i = 0; i < REPS; i++) {
        tc_lockin_result r;
        int64_t t0 = tc_mono_ns();
        if (tc_lockin_evaluate(&a, NULL, TC_LOCKIN_DEFAULT_SAMPLES, (uint64_t)i + 1, &r, err,
                               sizeof err) != TC_OK) {
            fprintf(stderr, "bench_analysis: %s\n", err);
            return -1;
        }
        ms[i] = (double)(tc_mono_ns() - t0) / 1e6;
        tc_lockin_result_free(&r);
    }
    printf("lockin Monte Carlo, %d samples: median %.1f ms\n", TC_LOCKIN_DEFAULT_SAMPLES,
           median(ms));
    return 0;
}

static int bench_bootstrap(size_t n)
{
    double *num = malloc(2 * n * sizeof *num), *den = malloc(2 * n * sizeof *den);
    if (!num || !den)
        return -1;
    tc_rng rng;
    tc_rng_seed(&rng, 1);
    for (size_t i = 0; i < 2 * n; i++) {
        num[i] = 128;
        den[i] = (i < n ? 2.0 : 1.0) * (0.8 + 0.4 * tc_rng_unit(&rng));
    }
    tc_boot_sample a = {num, den, n, 1}, b = {num + n, den + n, n, 1};
    double ms[REPS];
    char err[256];
    for (int i = 0; i < REPS; i++) {
        tc_boot_ci ci;
        int64_t t0 = tc_mono_ns();
        if (tc_boot_ci_compute(&a, &b, tc_boot_ratio_b_over_a, NULL, TC_BOOT_RESAMPLES,
                               TC_BOOT_SEED, 0.95, &ci, err, sizeof err) != TC_OK) {
            fprintf(stderr, "bench_analysis: %s\n", err);
            return -1;
        }
        ms[i] = (double)(tc_mono_ns() - t0) / 1e6;
    }
    printf("compare bootstrap, %d resamples, %zu requests a side: median %.1f ms\n",
           TC_BOOT_RESAMPLES, n, median(ms));
    free(num);
    free(den);
    return 0;
}

int main(void)
{
    if (bench_lockin() < 0)
        return 1;
    const size_t sizes[] = {100, 1000, 20000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (bench_bootstrap(sizes[i]) < 0)
            return 1;
    return 0;
}
