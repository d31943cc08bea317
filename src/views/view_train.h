/* A stored training run read back with its figures: the API `show`,
 * `cost`, `compare` (and decide, lockin and report) read a training run
 * through. */
#ifndef TC_VIEW_TRAIN_H
#define TC_VIEW_TRAIN_H

#include "analysis/train.h"
#include "record/record.h"
#include "record/record_train.h"
#include "store/store.h"

typedef struct tc_view_train {
    tc_run_info run;
    tc_train_info info;
    tc_train_step *steps; /* in order of reading */
    size_t n_steps;
    tc_train_warning *warnings; /* distinct, in order first seen */
    size_t n_warnings;
    int64_t warning_lines, error_lines; /* sums of the counts, by class */
    tc_training_figures fig;
    char card[64]; /* the spec row MFU used ("" none) */
    int n_devices; /* telemetry devices */
} tc_view_train;

/* 1 when run is a training run (stored by `truecost train`). */
int tc_view_is_train(const tc_run_info *run);

/* Reads training run `run` with its steps, warnings and telemetry and
 * computes its figures (the card for MFU: the --gpu given, else the first
 * GPU its telemetry saw, looked up in data/gpu-specs.csv). *found = 0
 * (TC_OK) when it is no training run. Free with tc_view_train_free. */
TC_MUST_CHECK tc_err tc_view_train_load(tc_store *st, const tc_run_info *run, tc_view_train *out,
                                        int *found, char *err, size_t errlen);

/* Frees what the view holds and zeroes it; accepts NULL. */
void tc_view_train_free(tc_view_train *v);

/* 1 when the run completed with no error line (warnings allowed): "the
 * minimal chain completed with no error" as a fact. */
int tc_view_train_clean(const tc_view_train *v);

#endif
