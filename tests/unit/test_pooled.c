/* Unit tests of analysis/pooled: the summary of a pooled sample of
 * nanosecond durations in bounded memory must be the exact one, the same
 * as sorting every value (tc_summary_compute), whichever number of passes
 * it took. Each case is run with every value held and with a `keep` far
 * below the count, which forces the histogram and the refining passes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis/pooled.h"
#include "core/tc_rng.h"

#define assert_same(a, b)                                                                          \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(a_ == b_))                                                                           \
            fail_msg("%s = %.17g, expected exactly %.17g", #a, a_, b_);                            \
    } while (0)

#define assert_rel(a, b, tol)                                                                      \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol)*fabs(b_) + 1e-15))                                            \
            fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                                    \
    } while (0)

/* Feeds v[0..n) as many passes as asked; returns the passes taken. */
static int summarise(const int64_t *v, size_t n, size_t keep, tc_summary *out)
{
    tc_pooled p;
    tc_pooled_init(&p, keep);
    int rc, passes = 0;
    do {
        for (size_t i = 0; i < n; i++)
            tc_pooled_add(&p, v[i]);
        passes++;
    } while ((rc = tc_pooled_end_pass(&p)) == 1);
    assert_int_equal(rc, 0);
    tc_pooled_summary_ms(&p, out);
    tc_pooled_free(&p);
    return passes;
}

/* Both ways against the sorted truth. */
static void check(const int64_t *v, size_t n, size_t small_keep)
{
    double *ms = malloc((n ? n : 1) * sizeof *ms);
    assert_non_null(ms);
    for (size_t i = 0; i < n; i++)
        ms[i] = (double)v[i] / 1e6;
    tc_summary want, held, spilled;
    tc_summary_compute(ms, n, &want);
    assert_int_equal(summarise(v, n, n + 1, &held), 1);
    int passes = summarise(v, n, small_keep, &spilled);
    if (n > small_keep)
        assert_true(passes >= 2 && passes <= 4);
    const tc_summary *got[2] = {&held, &spilled};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(got[k]->n, want.n);
        assert_same(got[k]->min, want.min);
        assert_same(got[k]->max, want.max);
        assert_same(got[k]->p50, want.p50);
        assert_same(got[k]->p90, want.p90);
        assert_same(got[k]->p95, want.p95);
        assert_same(got[k]->p99, want.p99);
        assert_rel(got[k]->mean, want.mean, 1e-12);
        /* The exact sum's mean may differ from the sorted sum's in the last
         * bit, which moves a stddev of all-equal values off 0 by ~1e-13. */
        assert_true(fabs(got[k]->stddev - want.stddev) <= 1e-9 * (want.stddev + want.mean));
    }
    free(ms);
}

static int64_t *draw(size_t n, uint64_t seed, int64_t lo, int64_t span)
{
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    int64_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = lo + (int64_t)(tc_rng_unit(&rng) * (double)span);
    return v;
}

static void typical_gaps_exact(void **state)
{
    (void)state;
    /* 5-50 ms: the buckets are 4-32 us wide, one refining pass. */
    int64_t *v = draw(20001, 1, 5000000, 45000000);
    check(v, 20001, 100);
    free(v);
}

static void tiny_gaps_in_exact_buckets(void **state)
{
    (void)state;
    int64_t *v = draw(5000, 2, 0, 2047); /* under 2048 ns every bucket is one value */
    check(v, 5000, 10);
    free(v);
}

static void long_gaps_take_another_pass(void **state)
{
    (void)state;
    /* Seconds to hours: buckets wider than 2^16 ns need a third pass. */
    int64_t *v = draw(3000, 3, 1000000000LL, 3600LL * 1000000000LL);
    check(v, 3000, 7);
    free(v);
}

static void heavy_ties_and_extremes(void **state)
{
    (void)state;
    int64_t v[4000];
    for (int i = 0; i < 4000; i++) /* mostly one value, a few far out */
        v[i] = i % 97 == 0 ? (int64_t)1 << 40 : i % 89 == 0 ? 1 : 10000000;
    check(v, 4000, 16);
    int64_t same[1000];
    for (int i = 0; i < 1000; i++)
        same[i] = 12345678;
    check(same, 1000, 3);
}

static void small_counts(void **state)
{
    (void)state;
    int64_t one[1] = {7000000}, two[2] = {9000000, 1000000};
    check(one, 1, 1);
    check(two, 2, 1);
    tc_summary s;
    assert_int_equal(summarise(NULL, 0, 0, &s), 1);
    assert_int_equal(s.n, 0); /* empty is marked, never zeros that look measured */
}

static void negative_counts_as_zero(void **state)
{
    (void)state;
    int64_t v[3] = {-5, 0, 4000000};
    tc_summary s;
    summarise(v, 3, 0, &s);
    assert_same(s.min, 0);
    assert_same(s.p50, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typical_gaps_exact),
        cmocka_unit_test(tiny_gaps_in_exact_buckets),
        cmocka_unit_test(long_gaps_take_another_pass),
        cmocka_unit_test(heavy_ties_and_extremes),
        cmocka_unit_test(small_counts),
        cmocka_unit_test(negative_counts_as_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
