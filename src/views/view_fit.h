/* `truecost fit --run RUN`: a stored run's measured peak device memory
 * (its telemetry, over the measured window), to print beside the
 * prediction. Reads through the figures' loader (figures.h); no store
 * code of its own. */
#ifndef TC_VIEW_FIT_H
#define TC_VIEW_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "store/store.h"

#define TC_FIT_RUN_MAX_DEVICES 16

typedef struct tc_fit_measured_dev {
    char name[128];
    int gpu;      /* a GPU (or other accelerator), not a CPU package */
    int has_peak; /* the device reported its memory in use */
    int64_t peak_mem_bytes;
} tc_fit_measured_dev;

typedef struct tc_fit_measured {
    int64_t run_id;
    char label[128];
    char model[256];
    int simulated;
    int n; /* devices sampled (at most TC_FIT_RUN_MAX_DEVICES) */
    tc_fit_measured_dev dev[TC_FIT_RUN_MAX_DEVICES];
} tc_fit_measured;

/* Finds run `which` (an id or a label: its newest run) in st and reads
 * each sampled device's peak memory in use into *out. TC_OK (n 0 when the
 * run has no telemetry), TC_ERR_NOTFOUND, or the store's error, with the
 * detail in err. */
TC_MUST_CHECK tc_err tc_view_fit_measured(tc_store *st, const char *which, tc_fit_measured *out,
                                          char *err, size_t errlen);

#endif
