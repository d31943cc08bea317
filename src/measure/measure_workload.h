/* A run of synthetic prompts (run --isl/--osl/--workload), before it
 * starts: whether its requests may ask the server to ignore EOS, the
 * calibration of the prompt length against the server's own count, and
 * the prompts themselves, with the shape to store with the run. */
#ifndef TC_MEASURE_WORKLOAD_H
#define TC_MEASURE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "bench/bench_calib.h"
#include "bench/bench_prompts.h"
#include "core/tc_error.h"
#include "record/record.h"

/* What was asked. */
typedef struct tc_workload_ask {
    const char *preset; /* the --workload name, or NULL */
    uint64_t seed;
    int64_t isl, osl;
    double isl_range; /* (0, 1] */
} tc_workload_ask;

/* Where the run goes: the server found by the probe, and how to reach it. */
typedef struct tc_workload_server {
    tc_endpoint endpoint;
    tc_api api;
    const char *model;
    const char *api_key; /* may be NULL; never kept */
    double timeout_s;
    const tc_probe *probe;
} tc_workload_server;

/* Calibrates against srv and makes the synthetic prompts of ask into
 * *prompts (free with tc_prompts_free) and the shape to store into *w;
 * *calib gets the calibration's probes, for the caller to show. Errors
 * are the calibration's (tc_calib_run), the reason in err. */
TC_MUST_CHECK tc_err tc_measure_workload(const tc_workload_ask *ask, const tc_workload_server *srv,
                                         tc_prompts *prompts, tc_run_workload *w,
                                         tc_calib_result *calib, char *err, size_t errlen);

#endif
