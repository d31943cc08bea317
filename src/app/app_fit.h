/* truecost fit's work: its options, and the answer printed. */
#ifndef TC_APP_FIT_H
#define TC_APP_FIT_H

#include "analysis/fit.h"

#define TC_APP_FIT_MAX_CARDS 16

/* fit's options as given (the words already judged into a tc_fit_options). */
typedef struct tc_app_fit_args {
    const char *model, *vram_text, *task, *kv_dtype, *dtype, *targets, *optimizer, *ckpt;
    const char *run, *log, *specs, *db;
    const char *gpu[TC_APP_FIT_MAX_CARDS];
    int n_gpu, json;
    double vram, utilization, overhead;
    long long gpus, ctx, concurrency, batch, seq, rank;
} tc_app_fit_args;

/* The model a->model read, its terms under o, each card of --gpu/--vram
 * judged, the server log and stored run beside them; the document printed
 * (JSON with a->json). 0, TC_EXIT_USAGE for bad content or an unknown
 * card, TC_EXIT_RUNTIME for a file, run or store that cannot be had. */
int tc_app_fit(const tc_app_fit_args *a, tc_fit_options *o);

#endif
