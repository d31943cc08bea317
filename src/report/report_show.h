/* What `show` prints for a stored result, and `run`, `sweep` and `soak`
 * print when they end: a run, a group of repeats, a sharded run merged, a
 * sweep or a soak, read through views/ and written by this folder's
 * documents, so that every command prints a result one way.
 *
 * Each writes the document to s->out and leaves what the reader should
 * hear besides (a figure that could not be read, a schedule lag behind a
 * JSON document) in s->notes, for the caller to say. Errors: the store's,
 * TC_ERR_NOMEM, or TC_ERR_IO (s->out failed), with the detail in err. */
#ifndef TC_REPORT_SHOW_H
#define TC_REPORT_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/figures.h"
#include "analysis/slo.h"
#include "store/store.h"

typedef enum tc_show_form {
    TC_SHOW_TABLE = 0,
    TC_SHOW_JSON = 1,
    TC_SHOW_NONE = 2, /* nothing: the figures alone, for the caller's checks */
    TC_SHOW_CSV = 3   /* the JSON document flattened to key,value rows (export) */
} tc_show_form;

#define TC_SHOW_MAX_NOTES 8

typedef struct tc_show {
    FILE *out;
    tc_show_form form;
    int color;    /* tables in colour */
    int terminal; /* out is a terminal (a soak's windows are drawn then) */
    /* Filled: one sentence each, without "truecost: ". */
    char notes[TC_SHOW_MAX_NOTES][600];
    int n_notes;
    /* Filled by tc_report_show_run: its measured and failed requests. */
    int64_t measured, failed;
    double error_rate;
    /* Filled by tc_report_show_soak: whether the run is a soak, and its
     * verdict. */
    int soak_found, soak_pass;
} tc_show;

/* One run (with slo: its goodput judged again under it). */
TC_MUST_CHECK tc_err tc_report_show_run(tc_store *st, const tc_run_info *run, const tc_slo *slo,
                                        tc_show *s, char *err, size_t errlen);

/* A group of repeats: its runs and the spread of their throughput. */
TC_MUST_CHECK tc_err tc_report_show_group(tc_store *st, const tc_runset *set, tc_show *s, char *err,
                                          size_t errlen);

/* A sharded group (run --shard) as the one run it is: merged records. */
TC_MUST_CHECK tc_err tc_report_show_shards(tc_store *st, const tc_runset *set, tc_show *s,
                                           char *err, size_t errlen);

/* A sweep: its points and knee; with slo, each point's goodput judged
 * again under it (else under the SLO stored with the sweep). */
TC_MUST_CHECK tc_err tc_report_show_sweep(tc_store *st, const tc_runset *set, const tc_slo *slo,
                                          tc_show *s, char *err, size_t errlen);

/* The soak of run: its verdict, windows and outages, when it is one
 * (s->soak_found; nothing is written otherwise). */
TC_MUST_CHECK tc_err tc_report_show_soak(tc_store *st, const tc_run_info *run, tc_show *s,
                                         char *err, size_t errlen);

#endif
