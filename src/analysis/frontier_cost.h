/* Cost per million tokens at equal interactivity: each platform's sweep
 * (any set of runs of one platform) as a Pareto frontier (frontier.h),
 * read at target interactivities and priced with the cost model, each
 * point with its own measured window power; a bootstrap interval on every
 * reading and, with two platforms, on the cost ratio B/A.
 *
 * The bootstrap resamples the requests within each point: a point's
 * interactivity becomes 1000 / the median TPOT of the resample, its
 * throughput scales by the resample's tokens per second of request time;
 * the frontier is rebuilt and read again. */
#ifndef TC_FRONTIER_COST_H
#define TC_FRONTIER_COST_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cost.h"
#include "analysis/cost_profile.h"
#include "analysis/frontier.h"
#include "analysis/slo.h"
#include "analysis/sweep.h"

#define TC_FRONTIER_MAX_TARGETS 16
#define TC_FRONTIER_MAX_POINTS 64
/* Bootstrap resamples of a frontier reading unless asked otherwise. */
#define TC_FRONTIER_RESAMPLES 2000

/* One request of a point, as the bootstrap resamples it. */
typedef struct tc_frontier_req {
    double tokens, seconds; /* output tokens, E2E */
    double tpot_ms;         /* < 0: undefined (one token) */
    int good;               /* met the SLO given at load (0 without one) */
} tc_frontier_req;

/* One platform: its points, each point's completed requests and power. */
typedef struct tc_frontier_side {
    const char *label;
    const tc_cost_profile *profile;
    tc_runset set;
    tc_sweep_point *pts;
    size_t n;
    tc_frontier_req **reqs;
    size_t *n_reqs;
    int simulated;
    /* With an SLO: each point's share of output tokens from good requests,
     * and its attainment (good / measured). */
    int has_slo;
    double *good_share, *attainment;
    /* Runs left out: not complete (interrupted, killed), their figures
     * partial. "c=8 (run 12, interrupted)", "" when none. */
    size_t n_left_out;
    char left_out[160];
} tc_frontier_side;

/* A point meets an SLO when this share of its measured requests is good. */
#define TC_FRONTIER_SLO_ATTAINMENT 0.99
void tc_frontier_side_free(tc_frontier_side *s);

/* A platform's figures at one target. */
typedef struct tc_frontier_value {
    tc_frontier_reading reading;
    double tokens_per_s_per_gpu;
    int has_cost;
    double cost_per_million_tokens; /* output tokens */
    int has_good_cost;              /* with an SLO: per million output tokens of good requests */
    double cost_per_million_good_tokens;
    int has_total_tps;                    /* the point's prompt count is known */
    double total_per_output;              /* (prompt + output) / output tokens at the point */
    double total_tokens_per_s_per_gpu;    /* prompt + output */
    int has_total_cost;                   /* has_total_tps and has_cost */
    double cost_per_million_total_tokens; /* prompt + output, at the point's mix */
    double good_share;                    /* with an SLO: output share of good requests */
    int has_energy;
    double avg_power_w, joules_per_output_token, tokens_per_mw; /* per MW provisioned: W x PUE */
    /* 95% intervals. The bootstrap resamples throughput (and so cost);
     * the others follow from it, as power, token mix and good share are
     * each point's own. NAN where the figure is not available. */
    int has_ci;
    double tps_lo, tps_hi, cost_lo, cost_hi;
    double total_tps_lo, total_tps_hi, total_cost_lo, total_cost_hi;
    double good_cost_lo, good_cost_hi, joules_lo, joules_hi, tokens_per_mw_lo, tokens_per_mw_hi;
    /* With a demand (ask->demand, else the profile's tokens_per_month):
     * GPUs = ceil(demand / (tokens/s per GPU x utilization x month)),
     * boxes = ceil(GPUs / GPUs a box), capex = boxes x hardware price
     * (has_capex 0 for a cloud profile). */
    int has_fleet, has_capex;
    long long gpus_needed, boxes_needed;
    double capex;
} tc_frontier_value;

typedef struct tc_frontier_target {
    double x; /* target interactivity, tokens/s per user */
    tc_frontier_value a, b;
    int has_capex_diff;
    double capex_diff; /* B's fleet capex - A's */
    int has_ratio;     /* cost B / A, with both costs */
    double ratio, ratio_lo, ratio_hi, p_b_cheaper;
    const char *verdict; /* of the claim: "supported", "refuted", "inconclusive", or NULL */
} tc_frontier_target;

typedef struct tc_frontier_result {
    int two;
    size_t n_targets;
    tc_frontier_target t[TC_FRONTIER_MAX_TARGETS];
    tc_frontier_pt fa[TC_FRONTIER_MAX_POINTS], fb[TC_FRONTIER_MAX_POINTS];
    size_t n_fa, n_fb;
    /* With an SLO: each side's highest-throughput point that meets it
     * (TC_FRONTIER_SLO_ATTAINMENT), priced as it stands; -1 when none. */
    int slo_point[2];
    tc_frontier_value slo_value[2];
    int has_slo_ratio;
    double slo_ratio; /* cost B / A at those points */
    /* Each frontier point's own figures, as a reading on it gives them. */
    tc_frontier_value va[TC_FRONTIER_MAX_POINTS], vb[TC_FRONTIER_MAX_POINTS];
    int resamples;
    uint64_t seed;
    int has_claim;
    double claim; /* "A is X times more cost-efficient than B": cost B / cost A >= X */
    /* The claim across the judged targets, in words, then the targets not
     * judged and why ("; not judged at 60 (B does not reach it)"). */
    char overall[640];
    int has_demand;
    double demand; /* output tokens per month */
    /* What makes the two sides measure more than the hardware: workload,
     * GPUs per point, power measured on one side only. */
    char warnings[6][240];
    int n_warnings;
} tc_frontier_result;

typedef struct tc_frontier_ask {
    const double *targets;
    size_t n_targets; /* at most TC_FRONTIER_MAX_TARGETS */
    int resamples;    /* 0: no interval */
    uint64_t seed;
    int has_claim;
    double claim;
    double demand; /* output tokens per month; 0: the profiles' own, if any */
} tc_frontier_ask;

/* Why target t got no ratio, into buf (returned): "A does not reach it",
 * "B does not reach it", "neither side reaches it", or a missing cost;
 * "judged" when it has one. */
const char *tc_frontier_unjudged(const tc_frontier_target *t, char *buf, size_t len);

/* Reads a (and b, which may be NULL) at every target. TC_ERR_INVALID when
 * a side has no point with a throughput and an interactivity, or too many
 * points or targets; TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_frontier_compute(const tc_frontier_side *a, const tc_frontier_side *b,
                                         const tc_frontier_ask *ask, tc_frontier_result *out,
                                         char *err, size_t errlen);

#endif
