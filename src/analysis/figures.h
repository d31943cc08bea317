/* A run's figures, as every command that reads stored runs takes them
 * (show, export, cost, compare, roofline, lockin, decide): the metrics,
 * energy and cost inputs computed from its records, and the records as
 * asked; views/view_figures.h loads them from the store.
 *
 * A RUN argument names a run id, a label (its newest run) or a group of
 * repeated runs (`run --repeat K`): a tc_runset. */
#ifndef TC_FIGURES_H
#define TC_FIGURES_H

#include <stddef.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/cost.h"
#include "analysis/run_energy.h"
#include "analysis/run_metrics.h"
#include "analysis/workload.h"
#include "record/record.h"

/* How much of a run to load besides its figures. */
typedef enum tc_figures_depth {
    TC_FIGURES_SUMMARY,  /* the figures alone (stored ones when there are): recs NULL */
    TC_FIGURES_REQUESTS, /* and every request record, with its first chunk only */
    TC_FIGURES_CHUNKS    /* and every request record with every chunk */
} tc_figures_depth;

/* One run's figures and, as asked, its records. */
typedef struct tc_figures {
    tc_run_info run;
    tc_req_record *recs; /* in send order; NULL with TC_FIGURES_SUMMARY */
    size_t n_recs;
    tc_run_metrics m;
    tc_run_energy e;
    tc_cost_measured cost_in; /* throughput and power as the cost model takes them */
    tc_workload_figures w;    /* achieved ISL/OSL, and the targets of a synthetic workload */
} tc_figures;

void tc_figures_free(tc_figures *f); /* accepts NULL */

/* The cost model's inputs of a run's figures: power and idle count only
 * when every sampled device has them, so a partial sum is never taken for
 * the whole. */
void tc_figures_cost_measured(const tc_run_metrics *m, const tc_run_energy *e,
                              tc_cost_measured *out);

/* A RUN argument resolved to its runs. */
typedef struct tc_runset {
    char name[128];    /* as given */
    int is_group;      /* 1: a group name (even of one run) */
    tc_run_info *runs; /* oldest first; owned */
    size_t n;
} tc_runset;

void tc_runset_free(tc_runset *s); /* accepts NULL */

void tc_runset_figures_free(tc_figures *f, size_t n); /* accepts NULL */

/* The cost inputs of a set of runs: throughput, power and J/token are the
 * means over the runs, power and J/token only when every run has them;
 * *tps gets the throughput spread. */
void tc_figures_mean_cost_inputs(const tc_figures *f, size_t n, tc_cost_measured *out,
                                 tc_group_stat *tps);

#define TC_FIGURES_MAX_WARNINGS 8

/* What makes a set's figures partial, one line each into lines (at most
 * max): runs that are not "complete" (interrupted, failed, still running)
 * and failed measured requests. `who` starts each line ("A", "group 'x'").
 * Returns the number of lines. */
int tc_figures_quality_warnings(const char *who, const tc_runset *set, const tc_figures *f,
                                char lines[][200], int max);

/* A set's figures as show and cost report them: the cost inputs at the
 * runs' means, the throughput spread and the quality warnings. */
typedef struct tc_set_summary {
    tc_cost_measured mean;
    tc_group_stat tps;
    char warnings[TC_FIGURES_MAX_WARNINGS][200];
    int n_warnings;
} tc_set_summary;

/* Fills *out from the set's figures f (one per run): the means and spread
 * of tc_figures_mean_cost_inputs, the lines of tc_figures_quality_warnings
 * starting with `who`. */
void tc_figures_summarise(const char *who, const tc_runset *set, const tc_figures *f,
                          tc_set_summary *out);

/* Every stored run, newest first, with its metrics (no telemetry), for
 * run lists. */
typedef struct tc_figures_list {
    tc_run_info *runs;
    tc_run_metrics *m;
    const tc_run_metrics **mp; /* &m[i], as the list reports take them */
    size_t n;
} tc_figures_list;

void tc_figures_list_free(tc_figures_list *l); /* accepts NULL */

#endif
