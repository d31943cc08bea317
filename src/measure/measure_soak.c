/* The soak: a run whose records and samples are summed per window as
 * they come, windows closed and stored a second after they end (batches
 * reach us up to half a second late), outages followed request by
 * request, the server probed for a restart as each window closes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"
#include "measure_soak_internal.h"

/* A window closes this long after its end: later records are rare and
 * counted in the next one. */
#define CLOSE_GRACE_S 1.0
/* A closed loop pauses this long after a failed request (the runner's
 * fail_pause_s): a server that is down meets a few requests a second. */
#define FAIL_PAUSE_S 0.25
/* A stretch of failures shorter than this is errors, not an outage, unless
 * connections were refused (the server was gone). */
#define OUTAGE_MIN_S 1.0
/* --chunks sample: every Nth request keeps all its chunk times. */
#define CHUNK_SAMPLE_EVERY 16
#define MAX_OUTAGES 100000

typedef struct soak {
    const tc_soak_config *cfg;
    const tc_soak_callbacks *cb;
    tc_store *store;
    tc_saver *saver; /* while the load runs: the store is written through it */
    tc_soak_plan plan;
    int started;
    int64_t mono0; /* soak time covered0 at mono0 */
    double covered0;
    /* Windows open: lo and lo + 1, in acc[idx % 2]. */
    int64_t lo;
    tc_soak_acc acc[2];
    tc_soak_window last;
    int has_last;
    /* Outages: all of them, the last one open while down. */
    tc_soak_outage *outages;
    size_t n_outages, cap_outages;
    int down;            /* an outage is open (the last entry) */
    int down_counted;    /* ... and stored: it passed OUTAGE_MIN_S or was refused */
    size_t changed_from; /* outages from here on are stored with the next window */
    /* A refused outage ended (at soak time refused_end_t): the next look
     * asked after it tells whether the server that came back is new. */
    int refused_pending;
    double refused_end_t;
    double look_t; /* when the pending look was asked (soak time) */
    /* The server. */
    int port, pid;
    tc_soak_prober *prober;
    tc_soak_identity id;
    int created_stable; /* "created" held across two probes: it is a start time */
    int restarts_now;   /* seen since the last window closed */
    int store_said;
} soak;

static double soak_time(const soak *s, int64_t mono)
{
    return s->covered0 + (double)(mono - s->mono0) / 1e9;
}

static double window_start(const soak *s, int64_t idx)
{
    return s->covered0 + (double)(idx - s->cfg->next_window) * s->plan.window_s;
}

static tc_soak_acc *acc_for(soak *s, double t)
{
    int64_t idx = s->cfg->next_window + (int64_t)floor((t - s->covered0) / s->plan.window_s);
    if (idx < s->lo)
        idx = s->lo;
    if (idx > s->lo + 1)
        idx = s->lo + 1;
    return &s->acc[idx % 2];
}

/* ---- outages ---------------------------------------------------------------- */

static tc_soak_outage *open_outage(soak *s, double t, const tc_req_record *r)
{
    if (s->n_outages == s->cap_outages) {
        size_t cap = s->cap_outages ? 2 * s->cap_outages : 16;
        tc_soak_outage *grown =
            s->n_outages < MAX_OUTAGES ? realloc(s->outages, cap * sizeof *grown) : NULL;
        if (!grown)
            return NULL; /* counted no more: the windows still hold the errors */
        s->outages = grown;
        s->cap_outages = cap;
    }
    tc_soak_outage *o = &s->outages[s->n_outages++];
    memset(o, 0, sizeof *o);
    o->start_s = t;
    o->end_s = -1;
    snprintf(o->first_error, sizeof o->first_error, "%s: %.140s", tc_req_error_name(r->error),
             r->error_detail);
    if (s->changed_from > s->n_outages - 1)
        s->changed_from = s->n_outages - 1;
    s->down = 1;
    s->down_counted = 0;
    return o;
}

/* A failure opens or extends an outage; a success sent after it began
 * ends it (a short one without refused connections is dropped: errors). */
static void follow(soak *s, const tc_req_record *r)
{
    if (r->error == TC_REQ_INTERRUPTED)
        return;
    tc_soak_outage *o = s->down ? &s->outages[s->n_outages - 1] : NULL;
    if (r->error != TC_REQ_OK) {
        if (!o)
            o = open_outage(s, soak_time(s, r->end_ns), r);
        if (!o)
            return;
        o->failed++;
        o->refused |= r->error == TC_REQ_CONNECT;
        if (o->refused || soak_time(s, r->end_ns) - o->start_s >= OUTAGE_MIN_S)
            s->down_counted = 1;
        if (s->changed_from > s->n_outages - 1)
            s->changed_from = s->n_outages - 1;
        return;
    }
    if (!o)
        return;
    double end = soak_time(s, r->send_ns);
    if (end < o->start_s)
        end = o->start_s;
    o->end_s = end;
    s->down = 0;
    if (o->refused) {
        s->refused_pending = 1;
        s->refused_end_t = end;
    }
    if (!o->refused && end - o->start_s < OUTAGE_MIN_S) { /* errors, not an outage */
        s->n_outages--;
        if (s->changed_from > s->n_outages)
            s->changed_from = s->n_outages;
    }
}

/* Downtime inside [a, b), now being soak time `now` for an open outage. */
static double down_in(const soak *s, double a, double b, double now)
{
    double d = 0;
    for (size_t i = s->n_outages; i-- > 0;) {
        const tc_soak_outage *o = &s->outages[i];
        double end = o->end_s < 0 ? now : o->end_s;
        if (end <= a)
            break; /* in order: the earlier ones end earlier still */
        double lo = o->start_s > a ? o->start_s : a, hi = end < b ? end : b;
        if (hi > lo)
            d += hi - lo;
    }
    return d;
}

/* ---- the server ---------------------------------------------------------------- */

/* A restart: the identity changed, or connections were refused and the
 * server came back without a start time that says it is the same. The
 * identity comes from the prober thread, asked at the last window's close
 * (a look lags by a window), and it is asked again. */
static void probe_server(soak *s)
{
    tc_soak_identity now;
    int got = tc_measure_soak_prober_take(s->prober, &now);
    double look_t = s->look_t;
    s->look_t = s->started ? soak_time(s, tc_mono_ns()) : -1e300;
    tc_measure_soak_prober_ask(s->prober);
    if (!got || !now.ok)
        return; /* down: the outage says so */
    /* Refused connections count once a look from after the server came
     * back says whether its start time held. */
    int refused = s->refused_pending && look_t >= s->refused_end_t;
    if (refused)
        s->refused_pending = 0;
    if (s->id.ok) {
        int same_start = now.created == s->id.created;
        int changed = strcmp(now.version, s->id.version) != 0 ||
                      strcmp(now.models, s->id.models) != 0 || (s->created_stable && !same_start);
        if (changed || (refused && !(s->created_stable && same_start))) {
            s->restarts_now++;
            s->plan.restarts++;
            s->pid = -1; /* a new process */
        }
        s->created_stable = same_start || (changed && s->created_stable);
    }
    s->id = now;
}

static int64_t server_rss(soak *s)
{
    if (s->port <= 0)
        return -1;
    int64_t rss = s->pid > 0 ? tc_measure_soak_process_rss(s->cfg->proc_root, s->pid) : -1;
    if (rss < 0) { /* not found yet, or gone: look again */
        s->pid = tc_measure_soak_server_pid(s->cfg->proc_root, s->port);
        rss = s->pid > 0 ? tc_measure_soak_process_rss(s->cfg->proc_root, s->pid) : -1;
    }
    return rss;
}

/* ---- windows ---------------------------------------------------------------- */

typedef struct window_save {
    soak *s;
    const tc_soak_window *w;
    size_t from, upto;
    char err[512];
} window_save;

static tc_err save_on(tc_store *store, void *arg)
{
    window_save *a = arg;
    soak *s = a->s;
    return tc_store_soak_save(store, &s->plan, a->w, s->outages + a->from,
                              a->upto > a->from ? a->upto - a->from : 0, a->err, sizeof a->err);
}

/* Stores window w (NULL: none), the plan and the outages that changed. */
static void save(soak *s, const tc_soak_window *w)
{
    /* An open outage not yet counted waits: it may turn out to be errors. */
    window_save a = {.s = s,
                     .w = w,
                     .from = s->changed_from,
                     .upto = s->down && !s->down_counted ? s->n_outages - 1 : s->n_outages};
    tc_err rc = tc_saver_with_store(s->saver, s->store, save_on, &a);
    if (rc == TC_OK)
        s->changed_from = s->down ? s->n_outages - 1 : s->n_outages;
    else if (!s->store_said++ && s->cb->store_failed)
        s->cb->store_failed(s->cb->run.ctx, a.err);
}

static void close_window(soak *s, double span_s, double now)
{
    tc_soak_acc *a = &s->acc[s->lo % 2];
    probe_server(s);
    tc_measure_soak_acc_end(a, span_s);
    a->w.rss_bytes = server_rss(s);
    a->w.restarts = s->restarts_now;
    a->w.down_s = down_in(s, a->w.start_s, a->w.start_s + span_s, now);
    s->restarts_now = 0;
    double end = a->w.start_s + span_s;
    if (end > s->plan.covered_s)
        s->plan.covered_s = end;
    save(s, &a->w);
    s->last = a->w;
    s->has_last = 1;
    /* This accumulator takes window lo + 2 now. */
    int64_t next = s->lo + 2;
    tc_measure_soak_acc_begin(a, next, window_start(s, next),
                              tc_wall_ns() + (int64_t)((window_start(s, next) - now) * 1e9));
    s->lo++;
}

/* Closes every window that ended a grace period ago. */
static void close_due(soak *s, int64_t mono)
{
    double now = soak_time(s, mono);
    while (window_start(s, s->lo + 1) + CLOSE_GRACE_S <= now)
        close_window(s, s->plan.window_s, now);
}

/* At the end: the windows up to now, the last one as long as it got. */
static void close_all(soak *s)
{
    double now = soak_time(s, tc_mono_ns());
    while (window_start(s, s->lo + 1) <= now)
        close_window(s, s->plan.window_s, now);
    double span = now - window_start(s, s->lo);
    if (span > 0.05 * s->plan.window_s)
        close_window(s, span, now);
    else
        save(s, NULL);
}

/* ---- the run's callbacks -------------------------------------------------------- */

/* Soak time starts with the measured phase (after the warm-up): its
 * windows open then. */
static void start_clock(soak *s, int64_t mono)
{
    s->mono0 = mono;
    s->covered0 = s->plan.covered_s;
    s->lo = s->cfg->next_window;
    int64_t wall = tc_wall_ns() - (tc_mono_ns() - mono);
    tc_measure_soak_acc_begin(&s->acc[s->lo % 2], s->lo, window_start(s, s->lo), wall);
    tc_measure_soak_acc_begin(&s->acc[(s->lo + 1) % 2], s->lo + 1, window_start(s, s->lo + 1),
                              wall + (int64_t)(s->plan.window_s * 1e9));
    s->started = 1;
}

static void on_started(void *ctx, const tc_run_info *run, int rep)
{
    soak *s = ctx;
    s->plan.run_id = run->id;
    char err[512];
    if (tc_store_soak_set_plan(s->store, &s->plan, err, sizeof err) != TC_OK && !s->store_said++ &&
        s->cb->store_failed)
        s->cb->store_failed(s->cb->run.ctx, err);
    s->look_t = -1e300;
    tc_measure_soak_prober_ask(s->prober); /* the identity to compare with */
    if (s->cb->run.started)
        s->cb->run.started(s->cb->run.ctx, run, rep);
}

static void on_records(void *ctx, const tc_req_record *recs, size_t n)
{
    soak *s = ctx;
    for (size_t i = 0; i < n; i++) {
        if (recs[i].warmup)
            continue;
        if (!s->started) /* before the first progress call of the measured phase */
            start_clock(s, tc_req_start_ns(&recs[i]));
        const tc_req_record *r = &recs[i];
        tc_measure_soak_acc_record(acc_for(s, soak_time(s, r->end_ns)), r);
        /* Tokens count where their chunk arrived: throughput per window is
         * then not lumped by when requests end. */
        if (r->error == TC_REQ_OK && r->n_chunks)
            for (size_t k = 0; k < r->n_chunks; k++) {
                double t = soak_time(s, r->chunk_ns[k]);
                if (t >= s->covered0) /* not before the soak's clock started */
                    tc_measure_soak_acc_tokens(acc_for(s, t),
                                               (double)r->output_tokens / (double)r->n_chunks);
            }
        follow(s, &recs[i]);
    }
}

static void on_saver(void *ctx, tc_saver *saver)
{
    ((soak *)ctx)->saver = saver;
}

static void on_samples(void *ctx, const tc_run_sample *smp, size_t n)
{
    soak *s = ctx;
    if (!s->started)
        return;
    for (size_t i = 0; i < n; i++)
        tc_measure_soak_acc_sample(acc_for(s, soak_time(s, smp[i].s.mono_ns)), &smp[i]);
}

static void on_progress(void *ctx, const tc_runner_progress *p)
{
    soak *s = ctx;
    int64_t mono = tc_mono_ns();
    if (!s->started && !p->warming_up) /* the measured phase began elapsed_s ago */
        start_clock(s, mono - (int64_t)(p->elapsed_s * 1e9));
    if (!s->started)
        return;
    close_due(s, mono);
    if (!s->cb->progress)
        return;
    double now = soak_time(s, mono);
    tc_soak_status st = {.elapsed_s = now,
                         .total_s = s->plan.duration_s,
                         .last = s->has_last ? &s->last : NULL,
                         .outages = (int)s->n_outages - (s->down && !s->down_counted),
                         .restarts = s->plan.restarts,
                         .downtime_s = down_in(s, 0, INFINITY, now),
                         .down = s->down && s->down_counted};
    s->cb->progress(s->cb->run.ctx, &st);
}

static void on_notice(void *ctx, tc_measure_notice what, const char *text)
{
    soak *s = ctx;
    if (s->cb->run.notice)
        s->cb->run.notice(s->cb->run.ctx, what, text);
}

static int on_finished(void *ctx, const tc_measure_outcome *o)
{
    soak *s = ctx;
    if (s->started)
        close_all(s);
    return s->cb->run.finished ? s->cb->run.finished(s->cb->run.ctx, o) : 0;
}

tc_err tc_measure_soak(const tc_soak_config *cfg, tc_store *store, const tc_soak_callbacks *cb,
                       tc_measure_result *out, char *err, size_t errlen)
{
    soak *s = calloc(1, sizeof *s);
    if (!s)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    s->cfg = cfg;
    s->cb = cb;
    s->store = store;
    s->plan = cfg->plan;
    s->pid = -1;
    s->port =
        cfg->run.load.endpoint.local ? tc_measure_soak_endpoint_port(&cfg->run.load.endpoint) : -1;
    tc_measure_config run = cfg->run;
    run.repeat = 1;
    run.load.requests = 0;
    run.load.duration_s = cfg->plan.duration_s - cfg->plan.covered_s;
    if (run.load.duration_s < 1)
        run.load.duration_s = 1;
    run.load.fail_pause_s = FAIL_PAUSE_S;
    run.chunk_sample = cfg->plan.chunks == TC_SOAK_CHUNKS_ALL      ? 0
                       : cfg->plan.chunks == TC_SOAK_CHUNKS_SAMPLE ? CHUNK_SAMPLE_EVERY
                                                                   : -1;
    run.resume_run_id = cfg->plan.run_id;
    tc_measure_callbacks mcb = {.stop = cb->run.stop,
                                .started = on_started,
                                .progress = on_progress,
                                .notice = on_notice,
                                .finished = on_finished,
                                .records = on_records,
                                .samples = on_samples,
                                .saver = on_saver,
                                .ctx = s};
    s->prober = tc_measure_soak_prober_start(&cfg->run.load.endpoint, cfg->run.load.api_key);
    tc_err rc = tc_measure_run(&run, store, &mcb, out, err, errlen);
    tc_measure_soak_prober_stop(s->prober);
    free(s->outages);
    free(s);
    return rc;
}
