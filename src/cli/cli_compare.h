/* truecost compare: private to cli_compare*.c. */
#ifndef TC_CLI_COMPARE_H
#define TC_CLI_COMPARE_H

#include <jansson.h>

#include "analysis/bootstrap.h"
#include "analysis/compare.h"
#include "analysis/roofline.h"
#include "cli_runset.h"

/* One side of the comparison: a run or a group, with its figures. */
typedef struct compare_side {
    const char *label; /* "A" or "B" */
    tc_runset set;
    tc_figures *f;                  /* set.n of them */
    tc_group_stat tps;              /* throughput over the runs (n = 1: that run's) */
    tc_cost_measured cost_in;       /* means over the runs */
    const tc_cost_profile *profile; /* NULL: no cost */
    tc_cost_result cost;
    int has_cost;
    json_t *fingerprint; /* of the first run; NULL when not recorded */
    tc_compare_side boot;
    tc_roofline_result roof; /* of the first run, at the side's mean decode p50 */
} compare_side;

typedef struct compare_claim {
    int given;
    double x;
    int on_cost;     /* 1: cost ratio; 0: throughput ratio (see why) */
    const char *why; /* when not on cost: the reason, a static string */
    tc_boot_ci ci;   /* of "how many times more efficient A is than B" */
    tc_claim_verdict verdict;
} compare_claim;

typedef struct compare_result {
    compare_side a, b;
    int simulated;
    const char *resampling; /* "requests", "runs" or "mixed" */
    const char *method;     /* how the intervals were made, in words */
    tc_boot_ci tps_ratio;   /* B/A */
    int has_cost_ratio;
    tc_boot_ci cost_ratio; /* cost B / cost A */
    compare_claim claim;
    json_t *differences;
    char warnings[2 * TC_FIGURES_MAX_WARNINGS + 1]
                 [200]; /* partial runs, failed requests, same runs */
    int n_warnings;
} compare_result;

/* The mean over the side's runs of a figure; *valid = 0 when no run has
 * it. */
typedef double (*compare_getter)(const tc_figures *f, int *valid);

typedef struct compare_row {
    const char *name, *unit;
    compare_getter get;
} compare_row;

/* The median client decode speed of a run (a compare_getter). */
double tc_compare_get_decode_p50(const tc_figures *f, int *valid);

extern const compare_row tc_compare_rows[];
extern const int tc_compare_n_rows;

double tc_compare_side_mean(const compare_side *s, compare_getter get, int *valid);

void tc_compare_print(const compare_result *r);
json_t *tc_compare_json(const compare_result *r);

#endif
