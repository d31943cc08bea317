/* Truth lines of replies still on their way out. A reply's line says
 * "complete" only once libevent has handed its last bytes to the kernel:
 * until then it waits here, and a crash-after exit (or a server stop)
 * writes it with that outcome instead, since the client never got the
 * whole reply. */
#ifndef TC_SIM_TRUTH_H
#define TC_SIM_TRUTH_H

#include <stddef.h>

#include <event2/http.h>

#include "core/tc_buf.h"
#include "sim_internal.h"

typedef struct tc_sim_pending tc_sim_pending;

/* Waits for req's last bytes: registers req's on-complete callback, which
 * also ends the process's loop (crash-after) when `crash`. NULL when
 * memory ran out (then nothing is registered). */
tc_sim_pending *tc_sim_pending_watch(tc_sim_server *s, struct evhttp_request *req, int crash);

/* Hands over the reply's truth line (copied; the outcome is the bytes
 * [outcome_at, outcome_end) of it). Written at once when the reply is
 * already out, else when it is. */
void tc_sim_pending_line(tc_sim_pending *p, const tc_buf *line, size_t outcome_at,
                         size_t outcome_end);

/* Writes every waiting line with `outcome` and frees them; returns how
 * many. */
int tc_sim_pending_drop_all(tc_sim_server *s, const char *outcome);

#endif
