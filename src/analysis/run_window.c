#include "run_window.h"
#include "core/tc_grow.h"

#include <stdlib.h>
#include <string.h>

void tc_steady_begin(tc_steady *w, int concurrency, int open_loop)
{
    memset(w, 0, sizeof *w);
    w->conc = concurrency > 0 ? concurrency : 1;
    w->open_loop = open_loop;
}

static void note_arrival(tc_steady *w, int64_t t)
{
    if (tc_grow(&w->sched, &w->cap_sched, w->n_sched, sizeof *w->sched, 256) < 0) {
        w->failed = 1;
        return;
    }
    w->sched[w->n_sched++] = t;
}

/* The open loop's bounds: the end of the first 10% of arrivals to the
 * last. 1 when they leave a stretch. */
static int settle_open(tc_steady *w)
{
    size_t k = (w->n_sched + 9) / 10; /* the first 10%, rounded up */
    if (w->n_sched >= 2 && w->sched[w->n_sched - 1] > w->sched[0])
        w->arrivals_per_s =
            (double)(w->n_sched - 1) / ((double)(w->sched[w->n_sched - 1] - w->sched[0]) / 1e9);
    if (w->n_sched < 2 || k >= w->n_sched)
        return 0;
    w->from = w->sched[k - 1];
    w->to = w->sched[w->n_sched - 1];
    return w->to > w->from;
}

/* When a request had its first token: the first chunk; a request that
 * sent none stopped holding its slot at its end. */
static int64_t first_token(const tc_req_record *r)
{
    if (r->n_chunks > 0)
        return r->chunk_ns[0];
    return r->end_ns > 0 ? r->end_ns : r->send_ns;
}

void tc_steady_note(tc_steady *w, const tc_req_record *r)
{
    if (w->open_loop) {
        if (!w->failed)
            note_arrival(w, tc_req_start_ns(r));
        return;
    }
    if (w->n_first < w->conc) {
        int64_t t = first_token(r);
        if (w->n_first == 0 || t > w->first_max)
            w->first_max = t;
        w->n_first++;
    }
    if (!w->ends && !w->failed) {
        w->ends = calloc((size_t)w->conc, sizeof *w->ends);
        w->failed = !w->ends;
    }
    if (w->failed)
        return;
    w->ends[w->next] = r->end_ns > 0 ? r->end_ns : r->send_ns;
    w->next = (w->next + 1) % w->conc;
    if (w->n_ends < w->conc)
        w->n_ends++;
}

int tc_steady_settle(tc_steady *w)
{
    if (w->failed)
        return -1;
    if (w->open_loop) {
        if (!settle_open(w))
            return 0;
    } else {
        if (w->n_first < w->conc)
            return 0;
        int64_t first_end = w->ends[0];
        for (int i = 1; i < w->n_ends; i++)
            if (w->ends[i] < first_end)
                first_end = w->ends[i];
        if (first_end <= w->first_max)
            return 0;
        w->from = w->first_max;
        w->to = first_end;
    }
    w->seconds = (double)(w->to - w->from) / 1e9;
    w->has_window = 1;
    return 1;
}

double tc_steady_share(const tc_steady *w, const tc_req_record *r)
{
    if (!w->has_window || r->error != TC_REQ_OK)
        return 0;
    if (r->n_chunks == 0)
        return r->end_ns > w->from && r->end_ns <= w->to;
    size_t in = 0;
    for (size_t i = 0; i < r->n_chunks; i++)
        in += r->chunk_ns[i] >= w->from && r->chunk_ns[i] <= w->to;
    return (double)in / (double)r->n_chunks;
}

void tc_steady_count(tc_steady *w, const tc_req_record *r)
{
    if (!w->has_window || r->error != TC_REQ_OK)
        return;
    if (r->end_ns > w->from && r->end_ns <= w->to)
        w->completed++;
    double share = tc_steady_share(w, r);
    w->requests += share;
    if (r->n_chunks > 0 && r->output_tokens > 0)
        w->output_tokens += (double)r->output_tokens * share;
}

void tc_steady_end(tc_steady *w)
{
    if (!w->has_window)
        return;
    w->output_tokens_per_s = w->output_tokens / w->seconds;
    w->requests_per_s = w->requests / w->seconds;
}

void tc_steady_free(tc_steady *w)
{
    if (!w)
        return;
    free(w->ends);
    free(w->sched);
    w->ends = w->sched = NULL;
}
