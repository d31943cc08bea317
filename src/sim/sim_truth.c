#include "sim_truth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tc_sim_pending {
    tc_sim_pending *prev, *next;
    tc_sim_server *srv;
    char *line;
    size_t len, outcome_at, outcome_end;
    int sent, crash;
};

static void unlink_pending(tc_sim_pending *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        p->srv->pending = p->next;
    if (p->next)
        p->next->prev = p->prev;
}

/* Writes p's line, its outcome replaced by `outcome` when not NULL, and
 * frees p. */
static void flush(tc_sim_pending *p, const char *outcome)
{
    FILE *f = p->srv->truth;
    if (f && p->line) {
        if (outcome) {
            fwrite(p->line, 1, p->outcome_at, f);
            fputs(outcome, f);
            fwrite(p->line + p->outcome_end, 1, p->len - p->outcome_end, f);
        } else {
            fwrite(p->line, 1, p->len, f);
        }
        fflush(f); /* a crash-after exit must not lose lines */
    }
    unlink_pending(p);
    free(p->line);
    free(p);
}

static void on_complete(struct evhttp_request *req, void *arg)
{
    (void)req;
    tc_sim_pending *p = arg;
    tc_sim_server *s = p->srv;
    int crash = p->crash;
    p->sent = 1;
    if (p->line)
        flush(p, NULL);
    if (crash) {
        s->crashed = 1;
        event_base_loopbreak(s->base);
    }
}

tc_sim_pending *tc_sim_pending_watch(tc_sim_server *s, struct evhttp_request *req, int crash)
{
    tc_sim_pending *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->srv = s;
    p->crash = crash;
    p->next = s->pending;
    if (p->next)
        p->next->prev = p;
    s->pending = p;
    evhttp_request_set_on_complete_cb(req, on_complete, p);
    return p;
}

void tc_sim_pending_line(tc_sim_pending *p, const tc_buf *line, size_t outcome_at,
                         size_t outcome_end)
{
    p->line = malloc(line->len ? line->len : 1);
    if (p->line) {
        memcpy(p->line, line->data, line->len);
        p->len = line->len;
        p->outcome_at = outcome_at;
        p->outcome_end = outcome_end;
    }
    if (p->sent || !p->line) /* out of memory: nothing to wait with */
        flush(p, NULL);
}

int tc_sim_pending_drop_all(tc_sim_server *s, const char *outcome)
{
    int n = 0;
    while (s->pending) {
        tc_sim_pending *p = s->pending;
        n += p->line && p->len;
        if (p->line)
            flush(p, outcome);
        else { /* its reply never finished: nothing to write */
            unlink_pending(p);
            free(p);
        }
    }
    return n;
}
