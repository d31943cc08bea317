/* Unit tests of analysis/frontier: the Pareto frontier and its monotone
 * cubic reading, worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "analysis/frontier.h"
#include "analysis/frontier_cost.h"

#include <string.h>

static void keeps_the_points_not_beaten(void **state)
{
    (void)state;
    /* (interactivity, tok/s per GPU): (50, 800) beats (40, 700); (100, 100)
     * and (20, 1600) are ends; NaN and 0 are left out. */
    double x[] = {20, 40, 50, 100, NAN, 30, 0};
    double y[] = {1600, 700, 800, 100, 5, 900, 3};
    tc_frontier_pt f[7];
    size_t n = tc_frontier_build(x, y, 7, f);
    assert_int_equal(n, 4);
    double wx[] = {20, 30, 50, 100}, wy[] = {1600, 900, 800, 100};
    for (size_t i = 0; i < n; i++) {
        assert_true(f[i].x == wx[i] && f[i].y == wy[i]);
        assert_true(x[f[i].src] == f[i].x); /* src names the point */
    }
}

static void reads_monotone_between_and_never_beyond(void **state)
{
    (void)state;
    double x[] = {25, 50, 100, 200}, y[] = {1000, 900, 500, 100};
    tc_frontier_pt f[4];
    size_t n = tc_frontier_build(x, y, 4, f), lo;
    double v, t;
    assert_int_equal(tc_frontier_at(f, n, 50, &v, &lo, &t), TC_AT_MEASURED);
    assert_true(fabs(v - 900) < 1e-9); /* on a point: its value */
    double prev = 1e9;
    for (double q = 25; q <= 200; q += 0.5) { /* never rises, never leaves its bracket */
        assert_int_equal(tc_frontier_at(f, n, q, &v, &lo, &t), TC_AT_MEASURED);
        assert_true(v <= prev + 1e-9);
        assert_true(v <= f[lo].y + 1e-9 && v >= f[lo + 1 < n ? lo + 1 : lo].y - 1e-9);
        prev = v;
    }
    assert_int_equal(tc_frontier_at(f, n, 75, &v, &lo, &t), TC_AT_MEASURED);
    assert_int_equal(lo, 1);
    assert_true(fabs(t - 0.5) < 1e-12);
    assert_int_equal(tc_frontier_at(f, n, 200.01, &v, &lo, &t), TC_AT_NOT_REACHED);
    assert_int_equal(tc_frontier_at(f, n, 10, &v, &lo, &t), TC_AT_BOUND);
    assert_true(v == 1000); /* served at the lowest measured point */
    assert_string_equal(tc_frontier_reading_name(TC_AT_BOUND), "bound");
    assert_int_equal(tc_frontier_at(f, 0, 10, &v, &lo, &t), TC_AT_NOT_REACHED);
}

static void linear_data_reads_linear(void **state)
{
    (void)state;
    /* Collinear points: the monotone cubic is the straight line. */
    double x[] = {10, 20, 30, 40}, y[] = {400, 300, 200, 100};
    tc_frontier_pt f[4];
    size_t n = tc_frontier_build(x, y, 4, f), lo;
    double v, t;
    tc_frontier_at(f, n, 17, &v, &lo, &t);
    assert_true(fabs(v - 330) < 1e-9);
}

/* A side of hand-made points (interactivity, tokens/s per GPU), one GPU,
 * no measured power: its cost per token is the profile's monthly cost over
 * its tokens, so cost B / cost A = throughput A / throughput B. */
static void hand_side(tc_frontier_side *s, tc_run_info *run, tc_sweep_point *pts, const double *x,
                      const double *y, size_t n, const tc_cost_profile *p)
{
    static int64_t next_id; /* each side its own run: not "the same runs" */
    memset(s, 0, sizeof *s);
    memset(run, 0, sizeof *run);
    run->id = ++next_id;
    s->label = "hand";
    s->profile = p;
    s->set.runs = run;
    s->set.n = 1;
    for (size_t i = 0; i < n; i++) {
        memset(&pts[i], 0, sizeof pts[i]);
        pts[i].has_interactivity = 1;
        pts[i].interactivity = x[i];
        pts[i].tokens_per_s_per_gpu = y[i];
        pts[i].gpus = 1;
    }
    s->pts = pts;
    s->n = n;
}

static void a_claim_that_flips_across_interactivity(void **state)
{
    (void)state;
    static const char text[] = "[hardware]\nprice = 3200\namortize_months = 36\n[power]\n"
                               "price_per_kwh = 0.30\nidle_watts = 80\nbusy_watts = 420\n"
                               "[operations]\nhours_per_month = 4\nhourly_rate = 80\n"
                               "[workload]\nutilization = 0.4\n";
    tc_cost_profile p;
    char err[256];
    assert_int_equal(tc_cost_profile_parse("hand", text, sizeof text - 1, &p, err, sizeof err),
                     TC_OK);
    /* A is fast at low interactivity and falls steeply; B is flatter. */
    double x[] = {10, 20, 40, 80}, ya[] = {1000, 900, 600, 200}, yb[] = {800, 760, 680, 500};
    tc_frontier_side a, b;
    tc_run_info ra, rb;
    tc_sweep_point pa[4], pb[4];
    hand_side(&a, &ra, pa, x, ya, 4, &p);
    hand_side(&b, &rb, pb, x, yb, 4, &p);
    const double at[] = {10, 20, 40, 80, 100};
    tc_frontier_ask ask = {.targets = at, .n_targets = 5, .has_claim = 1, .claim = 1.1};
    tc_frontier_result r;
    assert_int_equal(tc_frontier_compute(&a, &b, &ask, &r, err, sizeof err), TC_OK);
    /* On the points the ratio is throughput A / B exactly: 1.25, 1.18, 0.88, 0.4. */
    const double want[] = {1000.0 / 800, 900.0 / 760, 600.0 / 680, 200.0 / 500};
    const char *verdict[] = {"supported", "supported", "refuted", "refuted"};
    for (int i = 0; i < 4; i++) {
        assert_true(r.t[i].has_ratio);
        assert_true(fabs(r.t[i].ratio - want[i]) < 1e-9);
        assert_string_equal(r.t[i].verdict, verdict[i]);
    }
    assert_false(r.t[4].has_ratio); /* 100: neither reaches it */
    assert_null(r.t[4].verdict);
    assert_string_equal(r.overall, "holds at interactivity <= 20 tokens/s per user, fails above; "
                                   "not judged at 100 (neither side reaches it)");
    assert_int_equal(r.n_warnings, 0);
    /* The other way round, targets given out of order: B is cheaper than A
     * only at the high end, so "A is 1.1x" fails low and holds high. */
    const double shuffled[] = {80, 10, 40, 20};
    ask.targets = shuffled;
    ask.n_targets = 4;
    assert_int_equal(tc_frontier_compute(&b, &a, &ask, &r, err, sizeof err), TC_OK);
    assert_string_equal(r.t[0].verdict, "supported"); /* 80: 500 / 200 = 2.5 */
    assert_string_equal(r.t[1].verdict, "refuted");   /* 10: 800 / 1000 */
    assert_string_equal(r.overall, "holds at interactivity >= 40 tokens/s per user, fails below");
    /* A lower claim holds over a longer low stretch: A / B at 10, 20, 40,
     * 80 is then 1.43, 1.18, 0.88, 0.4. */
    ask.claim = 0.85;
    yb[0] = 700;
    hand_side(&b, &rb, pb, x, yb, 4, &p);
    assert_int_equal(tc_frontier_compute(&a, &b, &ask, &r, err, sizeof err), TC_OK);
    assert_string_equal(r.overall, "holds at interactivity <= 40 tokens/s per user, fails above");
    /* B / A at 10, 20, 40, 80: 0.7, 1.0, 1.13, 2.5: 1.2x holds at 80 only. */
    ask.claim = 1.2;
    yb[1] = 900;
    hand_side(&b, &rb, pb, x, yb, 4, &p);
    assert_int_equal(tc_frontier_compute(&b, &a, &ask, &r, err, sizeof err), TC_OK);
    assert_string_equal(r.overall, "holds at interactivity >= 80 tokens/s per user, fails below");
}

/* B's one point at interactivity 1000 / 10.5 ms = 95.2, its ten requests
 * TPOT 10 or 11 ms: resamples whose median is 10 ms read 100. A target of
 * 98 is past B's measured point: no reading, so no interval either, though
 * some resamples reach it; the overall line names it as not judged. */
static void no_interval_and_no_verdict_where_a_side_does_not_reach(void **state)
{
    (void)state;
    static const char text[] = "[hardware]\nprice = 3200\namortize_months = 36\n[power]\n"
                               "price_per_kwh = 0.30\nidle_watts = 80\nbusy_watts = 420\n"
                               "[operations]\nhours_per_month = 4\nhourly_rate = 80\n"
                               "[workload]\nutilization = 0.4\n";
    tc_cost_profile p;
    char err[256];
    assert_int_equal(tc_cost_profile_parse("hand", text, sizeof text - 1, &p, err, sizeof err),
                     TC_OK);
    double xa[] = {50, 150}, ya[] = {1000, 400}, xb[] = {1000 / 10.5}, yb[] = {800};
    tc_frontier_side a, b;
    tc_run_info ra, rb;
    tc_sweep_point pa[2], pb[1];
    hand_side(&a, &ra, pa, xa, ya, 2, &p);
    hand_side(&b, &rb, pb, xb, yb, 1, &p);
    tc_frontier_req qa[2][10], qb[10];
    tc_frontier_req *ra_[2] = {qa[0], qa[1]}, *rb_[1] = {qb};
    size_t na[2] = {10, 10}, nb[1] = {10};
    for (int i = 0; i < 10; i++) {
        qa[0][i] = (tc_frontier_req){.tokens = 40, .seconds = 0.8, .tpot_ms = 20};
        qa[1][i] = (tc_frontier_req){.tokens = 40, .seconds = 0.27, .tpot_ms = 1000.0 / 150};
        qb[i] = (tc_frontier_req){.tokens = 40, .seconds = 0.42, .tpot_ms = i % 2 ? 11 : 10};
    }
    a.reqs = ra_;
    a.n_reqs = na;
    b.reqs = rb_;
    b.n_reqs = nb;
    const double at[] = {60, 98, 200};
    tc_frontier_ask ask = {
        .targets = at, .n_targets = 3, .has_claim = 1, .claim = 0.5, .resamples = 1000, .seed = 7};
    tc_frontier_result r;
    assert_int_equal(tc_frontier_compute(&a, &b, &ask, &r, err, sizeof err), TC_OK);
    assert_int_equal(r.t[1].b.reading, TC_AT_NOT_REACHED);
    assert_false(r.t[1].b.has_ci); /* no reading, no interval (was 14.88 to 14.90) */
    assert_true(isnan(r.t[1].b.tps_lo) && isnan(r.t[1].b.cost_hi));
    assert_false(r.t[1].has_ratio);
    assert_true(isnan(r.t[1].ratio_lo) && isnan(r.t[1].p_b_cheaper));
    assert_true(r.t[1].a.has_ci); /* A reaches 98: its own interval stands */
    assert_false(r.t[2].a.has_ci);
    assert_string_equal(r.t[0].verdict, "supported");
    char why[64];
    assert_string_equal(tc_frontier_unjudged(&r.t[1], why, sizeof why), "B does not reach it");
    assert_string_equal(tc_frontier_unjudged(&r.t[2], why, sizeof why), "neither side reaches it");
    assert_string_equal(r.overall, "holds at every judged target; not judged at 98 (B does not "
                                   "reach it), 200 (neither side reaches it)");
    /* A not reaching a target is named as A. */
    assert_int_equal(tc_frontier_compute(&b, &a, &ask, &r, err, sizeof err), TC_OK);
    assert_string_equal(tc_frontier_unjudged(&r.t[1], why, sizeof why), "A does not reach it");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_interval_and_no_verdict_where_a_side_does_not_reach),
        cmocka_unit_test(a_claim_that_flips_across_interactivity),
        cmocka_unit_test(keeps_the_points_not_beaten),
        cmocka_unit_test(reads_monotone_between_and_never_beyond),
        cmocka_unit_test(linear_data_reads_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
