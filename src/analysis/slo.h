/* Service-level objectives per request, and goodput: the requests (and
 * their output tokens) that met every objective, per second.
 *
 * A request is good when it completed and each objective given holds:
 * TTFT <= ttft, TPOT <= tpot (TPOT of a request = (E2E - TTFT) / (output
 * tokens - 1); a one-token reply has no decode and meets it), E2E <= e2e.
 * Failed requests are never good. Attainment = good / measured. */
#ifndef TC_SLO_H
#define TC_SLO_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/run_window.h"
#include "core/tc_error.h"
#include "record/record.h"

#define TC_SLO_TEXT_MAX 96

typedef struct tc_slo {
    int has_ttft, has_tpot, has_e2e;
    double ttft_ms, tpot_ms, e2e_ms;
    char preset[16]; /* "chat", "code", "rag", or "" when given by values */
} tc_slo;

/* Parses a preset (chat: ttft 200 ms, tpot 50 ms; code: 500 ms, 150 ms;
 * rag: e2e 3 s) or a list "ttft=200ms,tpot=50ms,e2e=5s" (any of the three,
 * each at most once, durations with a unit). TC_ERR_INVALID with the bad
 * item and the fix in err. */
TC_MUST_CHECK tc_err tc_slo_parse(const char *text, tc_slo *out, char *err, size_t errlen);

/* The objectives as tc_slo_parse reads them back: "ttft=200ms,tpot=50ms";
 * a preset by its name. */
void tc_slo_text(const tc_slo *s, char *buf, size_t len);

/* 1 when r met every objective (see above), else 0. */
int tc_slo_good(const tc_slo *s, const tc_req_record *r);

/* Goodput of the measured requests, added one at a time: over the whole
 * run, and over its steady-state window counted as the window counts
 * (each request its share inside, tc_steady_share), so that goodput is
 * read over the same requests as the requests/s beside it and can never
 * exceed it. */
typedef struct tc_goodput {
    int64_t measured, completed, good;
    int64_t good_output_tokens;
    /* Set by tc_goodput_end: per second of the duration given there; 0
     * without one. attainment = good / measured (0 when none measured). */
    int has_rates;
    double requests_per_s, output_tokens_per_s, attainment;
    /* The window's: good requests' shares and their tokens, per second of
     * the window; has_window 0 when the run has none. */
    int has_window;
    double window_good, window_good_tokens;
    double window_requests_per_s, window_output_tokens_per_s;
} tc_goodput;

/* The whole run's pass: one measured (or warm-up, skipped) request. */
void tc_goodput_add(tc_goodput *g, const tc_slo *s, const tc_req_record *r);

/* The window's pass: r and its share inside w (tc_steady_share). */
void tc_goodput_add_share(tc_goodput *g, const tc_slo *s, const tc_req_record *r,
                          const tc_steady *w);

/* Sets the rates: the whole run's over duration_s, the window's over w
 * (NULL or no window: none). Asserts goodput <= the requests/s it is read
 * beside. */
void tc_goodput_end(tc_goodput *g, double duration_s, const tc_steady *w);

#endif
