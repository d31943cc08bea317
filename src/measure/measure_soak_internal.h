/* Private to the soak (measure_soak*.c): a window being summed up, and
 * the server's identity. */
#ifndef TC_MEASURE_SOAK_INTERNAL_H
#define TC_MEASURE_SOAK_INTERNAL_H

#include "core/tc_hist.h"
#include "measure_soak.h"

#define TC_SOAK_MAX_DEVICES 16

/* One window as its requests and samples come in. */
typedef struct tc_soak_acc {
    tc_soak_window w;
    double tokens; /* output tokens whose chunk arrived in the window */
    tc_hist ttft, tpot;
    double power_sum_w[TC_SOAK_MAX_DEVICES];
    int power_n[TC_SOAK_MAX_DEVICES];
    uint64_t energy_first[TC_SOAK_MAX_DEVICES], energy_last[TC_SOAK_MAX_DEVICES];
    int energy_n[TC_SOAK_MAX_DEVICES];
    int64_t mem_max[TC_SOAK_MAX_DEVICES];
} tc_soak_acc;

/* Empties a for window idx starting at soak time start_s. */
void tc_measure_soak_acc_begin(tc_soak_acc *a, int64_t idx, double start_s, int64_t wall_ns);

/* Counts a measured request (warm-up ones are not given): the window it
 * ended in. Its output tokens are counted by tc_measure_soak_acc_tokens into the
 * windows its chunks arrived in. */
void tc_measure_soak_acc_record(tc_soak_acc *a, const tc_req_record *r);

/* Counts n output tokens. */
void tc_measure_soak_acc_tokens(tc_soak_acc *a, double n);

/* Counts a telemetry sample. */
void tc_measure_soak_acc_sample(tc_soak_acc *a, const tc_run_sample *s);

/* The window's figures into a->w, for a span of span_s seconds. */
void tc_measure_soak_acc_end(tc_soak_acc *a, double span_s);

/* What the server says of itself: version, models and the first model's
 * "created" time (the start time on some servers). */
typedef struct tc_soak_identity {
    int ok;
    char version[64];
    char models[512];
    int64_t created;
} tc_soak_identity;

/* Reads it (2 s at most per request); 0, or -1 when the server did not
 * answer (id->ok = 0). */
int tc_measure_soak_identity_read(const tc_endpoint *ep, const char *key, tc_soak_identity *id);

/* A thread that reads the identity when asked, so that the load's loop
 * never waits on the server's info routes (it times every chunk). */
typedef struct tc_soak_prober tc_soak_prober;

/* Starts it (ep and key are copied); NULL when it could not start. */
tc_soak_prober *tc_measure_soak_prober_start(const tc_endpoint *ep, const char *key);

/* Asks for a new look (one at a time: asking again meanwhile is one). */
void tc_measure_soak_prober_ask(tc_soak_prober *p);

/* The identity read since the last take: 1 and *out, or 0 when none came. */
int tc_measure_soak_prober_take(tc_soak_prober *p, tc_soak_identity *out);

/* Stops and frees it; accepts NULL. */
void tc_measure_soak_prober_stop(tc_soak_prober *p);

#endif
