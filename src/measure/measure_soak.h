/* A soak: one long run at a target load, summarised per window as it
 * goes (requests, errors by kind, output tokens/s, TTFT and TPOT p50/p99
 * from mergeable histograms, power, energy, GPU memory, the local
 * server's RSS), its outages (first failed request to first success) and
 * the server's restarts, all stored as each window closes. Memory stays
 * bounded however long it runs: two windows' histograms, the outages,
 * and the requests the load generator has in flight; chunk times are
 * stored for a sample of requests (tc_soak_chunks).
 *
 * A resumed soak (after truecost was killed or its host rebooted) goes on
 * in the same run from the end of its last stored window. */
#ifndef TC_MEASURE_SOAK_H
#define TC_MEASURE_SOAK_H

#include "measure_run.h"
#include "record/record_soak.h"
#include "views/view_soak.h"

typedef struct tc_soak_config {
    /* The workload, as for a run; its duration, repeat, chunk_sample and
     * resume_run_id are set by the soak. */
    tc_measure_config run;
    /* Duration, window, thresholds, chunk storage. Resuming: the stored
     * plan (run_id, covered_s, restarts, resumes as stored). */
    tc_soak_plan plan;
    int64_t next_window;   /* resuming: the next window's index (0: a new soak) */
    const char *proc_root; /* where the server's process is read; NULL: "/proc" */
} tc_soak_config;

/* Where a soak stands, for a progress line. */
typedef struct tc_soak_status {
    double elapsed_s, total_s;  /* soak time */
    const tc_soak_window *last; /* the last closed window; NULL before the first */
    int outages, restarts;
    double downtime_s;
    int down; /* the server is down now */
} tc_soak_status;

typedef struct tc_soak_callbacks {
    /* stop, started, notice, finished and ctx as for a run; its progress,
     * records and samples are ignored (the soak's own are below). */
    tc_measure_callbacks run;
    /* About five times a second; may be NULL. */
    void (*progress)(void *ctx, const tc_soak_status *st);
    /* A window could not be stored (said once a soak); may be NULL. */
    void (*store_failed)(void *ctx, const char *why);
} tc_soak_callbacks;

/* Runs the soak (cfg->plan.duration_s of soak time, less what a resumed
 * soak already covered) and stores it. As tc_measure_run returns; out as
 * it fills it (out->last_run_id is the soak's run). */
TC_MUST_CHECK tc_err tc_measure_soak(const tc_soak_config *cfg, tc_store *store,
                                     const tc_soak_callbacks *cb, tc_measure_result *out, char *err,
                                     size_t errlen);

/* The local server's process: the pid listening on TCP `port` (IPv4 or
 * IPv6) found under proc_root, or -1. */
int tc_measure_soak_server_pid(const char *proc_root, int port);

/* One line of /proc/net/tcp or tcp6: 1 and *inode when it is a socket
 * listening on TCP `port`, else 0. */
int tc_measure_soak_listen_line(const char *line, int port, unsigned long *inode);

/* Resident memory of process pid in bytes, or -1. */
int64_t tc_measure_soak_process_rss(const char *proc_root, int pid);

/* The TCP port of an endpoint's base URL (80 or 443 when it names none);
 * -1 when it cannot be read. */
int tc_measure_soak_endpoint_port(const tc_endpoint *ep);

/* ---- resuming (measure_soak_resume.c) ---- */

/* The stored soak that RUN argument `which` names, into *ss (free with
 * tc_soak_stored_free). TC_ERR_INVALID when the run is no soak (named,
 * with the fix), TC_ERR_NOTFOUND, or the store's error. */
TC_MUST_CHECK tc_err tc_measure_soak_find(tc_store *st, const char *which, tc_soak_stored *ss,
                                          char *err, size_t errlen);

/* cfg's plan and next window for resuming soak `which`: its stored plan
 * (thresholds as stored), the time its stored windows covered. Also
 * TC_ERR_INVALID when it already covered its duration. */
TC_MUST_CHECK tc_err tc_measure_soak_resume(tc_store *st, const char *which, tc_soak_config *cfg,
                                            char *err, size_t errlen);

/* A word a resume gives itself (--resume RUN, --db PATH, --json,
 * --no-progress): how many words it starts (2: an option and its value),
 * 0 for any other word. */
int tc_measure_soak_own_word(const char *w);

/* The words of a soak's stored command line after "truecost soak", less
 * those a resume gives itself, into out (unquoted in buf, len bytes), at
 * most max; the count, or -1 with why in err (not stored, does not read
 * back, held a password). */
int tc_measure_soak_words(const char *command, char **out, int max, char *buf, size_t len,
                          char *err, size_t errlen);

#endif
