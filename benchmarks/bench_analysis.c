/* The analysis that runs on every read: how long the lock-in Monte Carlo
 * (100,000 samples, the default) and the comparison bootstrap (10,000
 * resamples, request level, at run sizes from 100 to 20,000 requests a
 * side) take. Prints the median of 7 repetitions of each. Target: well
 * under a second each (issue 7: the Monte Carlo). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/frontier_cost.h"
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

/* One side of a frontier: `points` points of `per` requests each, the
 * throughput falling as interactivity rises. */
static int fake_side(tc_frontier_side *s, const tc_cost_profile *p, size_t points, size_t per,
                     double scale, tc_rng *rng)
{
    memset(s, 0, sizeof *s);
    s->label = "bench";
    s->profile = p;
    s->pts = calloc(points, sizeof *s->pts);
    s->reqs = calloc(points, sizeof *s->reqs);
    s->n_reqs = calloc(points, sizeof *s->n_reqs);
    s->set.runs = calloc(1, sizeof *s->set.runs); /* one workload, as a sweep's runs */
    s->set.n = 1;
    if (!s->pts || !s->reqs || !s->n_reqs || !s->set.runs)
        return -1;
    for (size_t i = 0; i < points; i++) {
        double c = (double)(1u << i), tpot = 10 * (1 + 0.3 * (double)i);
        tc_sweep_point *pt = &s->pts[i];
        pt->has_interactivity = 1;
        pt->interactivity = 1000 / tpot;
        pt->tokens_per_s_per_gpu = scale * c * 1000 / tpot;
        pt->gpus = 1;
        pt->has_avg_power = 1;
        pt->avg_power_w = 300 + 10 * (double)i;
        s->reqs[i] = malloc(per * sizeof *s->reqs[i]);
        if (!s->reqs[i])
            return -1;
        for (size_t k = 0; k < per; k++)
            s->reqs[i][k] =
                (tc_frontier_req){128, 1.27 * tpot / 10 * (0.9 + 0.2 * tc_rng_unit(rng)),
                                  tpot * (0.9 + 0.2 * tc_rng_unit(rng)), 1};
        s->n_reqs[i] = per;
        s->n++;
    }
    return 0;
}

/* The case: 2,000 resamples over two 10-point sweeps of 1,000
 * requests each; target under 2 s. */
static int bench_frontier(void)
{
    tc_cost_profile p;
    char err[512];
    static const char profile[] = "currency = USD\n[hardware]\nprice = 3200\n"
                                  "amortize_months = 36\n[power]\nprice_per_kwh = 0.30\n"
                                  "pue = 1.1\nidle_watts = 80\nbusy_watts = 420\n"
                                  "[operations]\nhours_per_month = 4\nhourly_rate = 80\n"
                                  "[workload]\nutilization = 0.4\n";
    if (tc_cost_profile_parse("bench", profile, sizeof profile - 1, &p, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_analysis: %s\n", err);
        return -1;
    }
    tc_rng rng;
    tc_rng_seed(&rng, 7);
    tc_frontier_side a, b;
    if (fake_side(&a, &p, 10, 1000, 1, &rng) < 0 || fake_side(&b, &p, 10, 1000, 1.3, &rng) < 0)
        return -1;
    const double at[] = {20, 35, 50, 100};
    tc_frontier_ask ask = {at, 4, 2000, TC_BOOT_SEED, 1, 1.2, 0};
    tc_frontier_result *r = malloc(sizeof *r);
    double ms[REPS];
    for (int i = 0; r && i < REPS; i++) {
        int64_t t0 = tc_mono_ns();
        if (tc_frontier_compute(&a, &b, &ask, r, err, sizeof err) != TC_OK) {
            fprintf(stderr, "bench_analysis: %s\n", err);
            return -1;
        }
        ms[i] = (double)(tc_mono_ns() - t0) / 1e6;
    }
    double m = median(ms);
    printf("frontier bootstrap, 2000 resamples, two 10-point sweeps of 1,000 requests: median "
           "%.1f ms (target < 2000 ms: %s)\n",
           m, m < 2000 ? "PASS" : "FAIL");
    free(r);
    tc_frontier_side_free(&a);
    tc_frontier_side_free(&b);
    return 0;
}

int main(void)
{
    if (bench_frontier() < 0)
        return 1;
    if (bench_lockin() < 0)
        return 1;
    const size_t sizes[] = {100, 1000, 20000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (bench_bootstrap(sizes[i]) < 0)
            return 1;
    return 0;
}
