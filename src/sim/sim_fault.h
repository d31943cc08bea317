/* The simulator's fault plan: which request gets which fault. Decisions are
 * a pure function of (seed, request number), so a run with the same seed
 * and the same request order meets the same faults.
 *
 * Spec syntax (one --fault each): KIND:RATE[:ARG]
 *   http500:RATE        answer HTTP 500 with the API's error body
 *   http503:RATE        answer HTTP 503 (overloaded)
 *   disconnect:RATE     cut the connection mid-stream
 *   malformed:RATE      send one chunk of invalid JSON mid-stream
 *   stall:RATE:MS       pause MS milliseconds mid-stream
 *   slow-accept:RATE:MS wait MS milliseconds before any response byte
 *   crash-after:N       the process exits once N requests have finished
 * RATE is a probability in [0, 1]. At most one of http500, http503,
 * disconnect, malformed and stall applies to a request (the first that
 * fires, in the order given); slow-accept combines with any of them. */
#ifndef TC_SIM_FAULT_H
#define TC_SIM_FAULT_H

#include <stddef.h>
#include <stdint.h>

typedef enum tc_sim_fault_kind {
    TC_FAULT_NONE = 0,
    TC_FAULT_HTTP500,
    TC_FAULT_HTTP503,
    TC_FAULT_DISCONNECT,
    TC_FAULT_MALFORMED,
    TC_FAULT_STALL,
    TC_FAULT_SLOW_ACCEPT,
    TC_FAULT_CRASH_AFTER
} tc_sim_fault_kind;

#define TC_SIM_MAX_FAULTS 16

typedef struct tc_sim_fault_rule {
    tc_sim_fault_kind kind;
    double rate; /* probability per request; unused by crash-after */
    int64_t arg; /* ms for stall and slow-accept; N for crash-after */
} tc_sim_fault_rule;

typedef struct tc_sim_fault_plan {
    tc_sim_fault_rule rules[TC_SIM_MAX_FAULTS];
    int count;
    int64_t crash_after; /* 0 = never */
} tc_sim_fault_plan;

/* What happens to one request. */
typedef struct tc_sim_fault_decision {
    tc_sim_fault_kind kind; /* TC_FAULT_NONE or one of the exclusive kinds */
    int64_t stall_ms;       /* for TC_FAULT_STALL */
    int64_t slow_accept_ms; /* 0 = answer at once */
} tc_sim_fault_decision;

/* Parses one spec and adds it to the plan. Returns 0, or -1 with the reason
 * (naming the spec and the valid forms) in err. */
int tc_sim_fault_parse(tc_sim_fault_plan *plan, const char *spec, char *err, size_t errlen);

/* The decision for request number `request_no` (1-based) under `seed`. */
tc_sim_fault_decision tc_sim_fault_decide(const tc_sim_fault_plan *plan, uint64_t seed,
                                          uint64_t request_no);

/* The spec keyword of a kind ("http500", ...); "none" for TC_FAULT_NONE. */
const char *tc_sim_fault_name(tc_sim_fault_kind kind);

/* The token index at which a mid-stream fault strikes in a stream of
 * `tokens` tokens: after the first token and before the last when it can. */
int tc_sim_fault_position(int tokens);

#endif
