/* RUN arguments: a run id, a label (its newest run), or the name of a
 * group of repeated runs (`run --repeat K`); and the figures of each run,
 * loaded once for the commands that price and compare them. */
#ifndef TC_CLI_RUNSET_H
#define TC_CLI_RUNSET_H

#include <stddef.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/cost.h"
#include "analysis/run_energy.h"
#include "analysis/run_metrics.h"
#include "store/store.h"

typedef struct tc_cli_runset {
    char name[128];    /* as given */
    int is_group;      /* 1: a group name (even of one run) */
    tc_run_info *runs; /* oldest first; owned */
    size_t n;
} tc_cli_runset;

/* Resolves `which`: all digits is an id; else a group of that name when
 * one exists; else the newest run with that label. Prints the error and
 * returns TC_EXIT_RUNTIME when nothing matches; else 0. */
int tc_cli_runset_find(tc_store *st, const char *which, tc_cli_runset *out);
void tc_cli_runset_free(tc_cli_runset *s); /* accepts NULL */

/* One run's records and the figures computed from them. */
typedef struct tc_cli_figures {
    tc_run_info run;
    tc_req_record *recs;
    size_t n_recs;
    tc_run_metrics m;
    tc_run_energy e;
    tc_cost_measured cost_in; /* throughput and power as the cost model takes them */
} tc_cli_figures;

/* Loads run's requests and telemetry and computes its figures into *out
 * (free with tc_cli_figures_free). Prints the error and returns
 * TC_EXIT_RUNTIME on failure; else 0. */
int tc_cli_figures_load(tc_store *st, const tc_run_info *run, tc_cli_figures *out);
void tc_cli_figures_free(tc_cli_figures *f); /* accepts NULL */

/* Loads the figures of every run of the set into a new array *f of s->n
 * (free with tc_cli_runset_figures_free). Prints the error and returns
 * TC_EXIT_RUNTIME on failure (nothing to free); else 0. */
int tc_cli_runset_load(tc_store *st, const tc_cli_runset *s, tc_cli_figures **f);
void tc_cli_runset_figures_free(tc_cli_figures *f, size_t n); /* accepts NULL */

/* The cost inputs of a set of runs: throughput, power and J/token are the
 * means over the runs, power and J/token only when every run has them;
 * *tps gets the throughput spread. */
void tc_cli_mean_cost_inputs(const tc_cli_figures *f, size_t n, tc_cost_measured *out,
                             tc_group_stat *tps);

/* Prints the group's runs and throughput spread as a table, or as one
 * JSON document {group, simulated, runs: [...], throughput: {runs, mean,
 * stddev, cv, cv_limit, noisy}}. Returns 0 or TC_EXIT_RUNTIME (said). */
int tc_cli_print_group(tc_store *st, const tc_cli_runset *set, int json);

/* The same JSON document, new reference; NULL after saying why. */
json_t *tc_cli_group_doc(tc_store *st, const tc_cli_runset *set);

#define TC_CLI_MAX_WARNINGS 8

/* What makes a set's figures partial, one line each into lines (at most
 * TC_CLI_MAX_WARNINGS): runs that are not "complete" (interrupted, failed,
 * still running) and failed measured requests. `who` starts each line
 * ("A", "group 'x'"). Returns the number of lines. */
int tc_cli_quality_warnings(const char *who, const tc_cli_runset *set, const tc_cli_figures *f,
                            char lines[][200], int max);

/* The cost model's inputs of a run's figures: power and idle count only
 * when every sampled device has them, so a partial sum is never taken for
 * the whole. */
void tc_cli_cost_measured(const tc_run_metrics *m, const tc_run_energy *e, tc_cost_measured *out);

#endif
