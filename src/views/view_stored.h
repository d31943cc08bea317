/* A run's figures computed once, when it ends, and kept in the store, so
 * that `show`, `runs` and `cost` of a run of hundreds of millions of chunks
 * read one row instead of every chunk time.
 *
 * The records stay the truth: stored figures carry the version of the
 * figures' definition that made them (analysis/figures_codec.h), and any
 * other version (or none, a run from an older truecost) is computed again
 * from the records, streamed in memory that grows with the requests,
 * never the chunks. */
#ifndef TC_VIEW_STORED_H
#define TC_VIEW_STORED_H

#include <stddef.h>

#include "analysis/run_metrics.h"
#include "analysis/slo.h"
#include "store/store.h"

/* The run's stored figures of this version into *out, *found = 1; *found
 * = 0 (TC_OK, *out untouched) when there are none or the row is damaged
 * (the records are the truth: compute them). The store's errors. */
TC_MUST_CHECK tc_err tc_view_stored_figures(tc_store *st, const tc_run_info *run, tc_run_metrics *out,
                                       int *found, char *err, size_t errlen);

/* Computes the run's full figures from its records, streamed from the
 * store in two or three passes once it has more than `keep` inter-token
 * gaps (0: TC_POOLED_KEEP_DEFAULT). Free with tc_run_metrics_free. */
TC_MUST_CHECK tc_err tc_view_computed_figures(tc_store *st, const tc_run_info *run, size_t keep,
                                               tc_run_metrics *out, char *err, size_t errlen);

/* The run's figures: the stored ones of this version, else computed as
 * above (and not stored: a reader changes nothing). *from_store says
 * which (may be NULL). */
TC_MUST_CHECK tc_err tc_view_summary(tc_store *st, const tc_run_info *run, tc_run_metrics *out,
                                        int *from_store, char *err, size_t errlen);

/* Goodput of `run` under objectives other than its own (show RUN --slo):
 * its records streamed with their first chunks, memory that grows with
 * nothing; sets m->has_slo, m->slo and m->goodput (per second of
 * m->duration_s, as a run's own goodput). */
TC_MUST_CHECK tc_err tc_view_apply_slo(tc_store *st, const tc_run_info *run, const tc_slo *slo,
                                          tc_run_metrics *m, char *err, size_t errlen);

/* Computes and stores the figures of a finished run (a writer's store). */
TC_MUST_CHECK tc_err tc_view_save_figures(tc_store *st, const tc_run_info *run, char *err,
                                     size_t errlen);

/* The same for every finished run that has no figures of this version (a
 * database from an older truecost, once); *n counts them. */
TC_MUST_CHECK tc_err tc_view_save_missing_figures(tc_store *st, size_t *n, char *err, size_t errlen);

#endif
