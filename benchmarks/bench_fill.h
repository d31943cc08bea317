/* A large synthetic run written into a store, for the benchmarks that read
 * one back (bench_store, bench_report): requests of per_request chunks,
 * 8-12 ms apart with a jitter, as a real stream has (the percentiles then
 * need the refining pass a real run needs). */
#ifndef BENCH_FILL_H
#define BENCH_FILL_H

#include <stdint.h>

#include "store/store.h"

typedef struct bench_fill {
    const char *label; /* may be NULL */
    long long requests;
    int per_request; /* chunks a request */
    int in_flight;   /* sends come in rounds of this many; 0: one a millisecond */
    int batch;       /* requests a store batch */
    int saver;       /* 1: batches handed to a saver thread, as a run's are */
} bench_fill;

/* Begins, fills and finishes a run in s; *run gets it. *save_ns (may be
 * NULL): begin to finish. 0, or -1 after printing why (prefixed by who). */
int bench_fill_run(tc_store *s, const bench_fill *f, const char *who, tc_run_info *run,
                   int64_t *save_ns);

#endif
