/* Stored runs as the commands read them: a RUN argument resolved to its
 * runs, each run's figures with its telemetry and records to a depth, its
 * fingerprint, and the list of every run. The store-backed side of
 * analysis/figures.h (whose types these fill), so that analysis/ works on
 * arrays alone. */
#ifndef TC_VIEW_FIGURES_H
#define TC_VIEW_FIGURES_H

#include <jansson.h>

#include "analysis/figures.h"
#include "store/store.h"

/* Loads run's figures (tc_view_summary: stored ones when there are),
 * its telemetry and energy over the measured window, and its records to
 * `depth`, into *out (free with tc_figures_free; nothing to free on
 * failure). Memory grows with the run's chunks only at TC_FIGURES_CHUNKS.
 * TC_OK, the store's error, or TC_ERR_NOMEM, with the detail in err. */
TC_MUST_CHECK tc_err tc_view_figures(tc_store *st, const tc_run_info *run, tc_figures_depth depth,
                                     tc_figures *out, char *err, size_t errlen);

/* What run lists show: the stored figures when there are, else
 * tc_run_metrics_begin's list_only (counts, tokens, throughput, TTFT) read
 * as a stream of first chunks, so memory grows with the run's requests,
 * not its chunks. Free with tc_run_metrics_free; nothing to free on
 * failure. */
TC_MUST_CHECK tc_err tc_view_list_metrics(tc_store *st, const tc_run_info *run, tc_run_metrics *out,
                                          char *err, size_t errlen);

/* The run's stored environment fingerprint, parsed, in *fp (a new
 * reference; JSON null when none was recorded or it does not parse).
 * TC_OK or the store's error (then *fp is JSON null too). */
TC_MUST_CHECK tc_err tc_view_fingerprint(tc_store *st, int64_t run_id, json_t **fp, char *err,
                                         size_t errlen);

/* Resolves `which`: all digits is an id; else a group of that name when
 * one exists; else the newest run with that label. TC_ERR_NOTFOUND (and
 * the store's errors) with the detail in err; free with tc_runset_free. */
TC_MUST_CHECK tc_err tc_view_runset(tc_store *st, const char *which, tc_runset *out, char *err,
                                    size_t errlen);

/* Loads the figures of every run of the set into a new array *f of s->n
 * (free with tc_runset_figures_free; nothing to free on failure).
 * TC_ERR_INVALID for a sharded group (run --shard): its runs are parts of
 * one, which tc_view_shards merges. */
TC_MUST_CHECK tc_err tc_view_runset_figures(tc_store *st, const tc_runset *s,
                                            tc_figures_depth depth, tc_figures **f, char *err,
                                            size_t errlen);

/* Loads the list into *out (free with tc_figures_list_free; nothing to
 * free on failure). TC_OK, the store's error or TC_ERR_NOMEM, detail in
 * err. */
TC_MUST_CHECK tc_err tc_view_figures_list(tc_store *st, tc_figures_list *out, char *err,
                                          size_t errlen);

#endif
