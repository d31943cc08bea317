/* What a soak (a long run at a target load) keeps besides its requests:
 * its plan, one summary per window and its outages. measure/ fills them,
 * store/ keeps them, analysis/ judges them. Times are seconds of soak time
 * since the soak began: a resumed soak goes on from its last window, so
 * the time truecost itself was down is not in them. */
#ifndef TC_RECORD_SOAK_H
#define TC_RECORD_SOAK_H

#include <stdint.h>

#include "record.h"

/* How many chunk times a soak stores per request. */
typedef enum tc_soak_chunks {
    TC_SOAK_CHUNKS_SAMPLE = 0, /* every 16th request all, the others only their first */
    TC_SOAK_CHUNKS_ALL,
    TC_SOAK_CHUNKS_NONE /* the first chunk only (the TTFT) */
} tc_soak_chunks;

/* "sample", "all", "none"; parse returns 0 or -1. */
const char *tc_chunks_name(tc_soak_chunks c);
int tc_chunks_parse(const char *name, tc_soak_chunks *out);

/* The soak's plan and where it stands, one per soak run. */
typedef struct tc_soak_plan {
    int64_t run_id;
    double duration_s;     /* soak time asked for */
    double window_s;       /* one summary per window */
    double max_downtime_s; /* the thresholds of the verdict */
    double max_drift_pct;  /* per hour: throughput, TPOT, memory */
    double max_error_rate; /* of requests outside outages */
    tc_soak_chunks chunks;
    double covered_s; /* soak time measured so far (the end of the last window) */
    int restarts;     /* server restarts seen */
    int resumes;      /* times the soak was resumed */
    /* The command line it started as (a URL's password as "***"; ""
     * unknown, or too long to keep whole): `--resume` alone takes its URL
     * and load from it. Stored once, when the soak starts. */
    char command[2048];
} tc_soak_plan;

/* One window's summary. A figure that could not be measured is NaN (the
 * doubles) or -1 (the byte counts). */
typedef struct tc_soak_window {
    int64_t idx; /* 0, 1, ... across resumes */
    double start_s, span_s;
    int64_t wall_ns;  /* when the window began, for people */
    int64_t requests; /* finished in the window, failed ones included */
    int64_t errors;
    int64_t errors_by_kind[TC_REQ_ERROR_COUNT];
    int64_t output_tokens;
    double tok_s; /* output tokens / span */
    double ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms;
    double avg_power_w;    /* mean over the window, summed over the devices */
    double energy_j;       /* over the window, summed over the devices */
    int64_t gpu_mem_bytes; /* the most used at once, summed over the GPUs */
    int64_t rss_bytes;     /* the server process's, when it runs on this host */
    int restarts;          /* server restarts seen in the window */
    double down_s;         /* downtime inside the window */
} tc_soak_window;

/* One outage: first failed request to first success (end_s < 0: still
 * down when the soak ended). */
typedef struct tc_soak_outage {
    double start_s, end_s;
    int64_t failed; /* requests that failed in it */
    int refused;    /* connections were refused: the server was gone */
    char first_error[160];
} tc_soak_outage;

#endif
