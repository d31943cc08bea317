/* The saver (measure_saver.h): a queue of copies, a thread that empties
 * it into the store, and a head of refused records tried again first. */
#include "measure_saver.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tc_time.h"

#define RETRY_NS (500 * TC_NS_PER_MS)
#define FLUSH_POLL_NS (100 * TC_NS_PER_MS)

struct tc_saver {
    tc_store *store;
    int64_t run_id, patience_ns;
    size_t write_max;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t changed; /* broadcast on every change of the fields below */
    tc_req_record *q;       /* added copies, not yet taken, in the order added */
    size_t nq, capq;
    tc_run_sample *qs;
    size_t nqs, capqs;
    /* Taken from q: written from head_off on, write_max a transaction, so
     * the store is free between transactions. */
    tc_req_record *head;
    size_t head_off, head_n;
    int writing, borrowed, quit;
    int refusing; /* the head's last write was refused; adding is refused until one lands */
    int64_t refusing_since_ns, retry_at_ns;
    char why[512];
    int samples_lost; /* 1: lost and not yet told; 2: told */
    char samples_why[512];
};

static size_t head_left(const tc_saver *s)
{
    return s->head ? s->head_n - s->head_off : 0;
}

static int has_work(const tc_saver *s)
{
    return s->head || s->nq || s->nqs;
}

/* Waits on the saver's condition until at most at_ns (0: no limit). */
static void wait_until(tc_saver *s, int64_t at_ns)
{
    if (!at_ns) {
        pthread_cond_wait(&s->changed, &s->mu);
        return;
    }
    int64_t left = at_ns - tc_mono_ns();
    if (left <= 0)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ns = (int64_t)ts.tv_nsec + left;
    ts.tv_sec += (time_t)(ns / TC_NS_PER_S);
    ts.tv_nsec = (long)(ns % TC_NS_PER_S);
    pthread_cond_timedwait(&s->changed, &s->mu, &ts);
}

static void free_records(tc_req_record *r, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        tc_req_record_clear(&r[i]);
    free(r);
}

/* Notes the first samples lost, and why. Locked. */
static void lose_samples(tc_saver *s, const char *why)
{
    if (s->samples_lost)
        return;
    s->samples_lost = 1;
    snprintf(s->samples_why, sizeof s->samples_why, "%s", why);
}

/* The queued samples, once the requests before them were taken. Called
 * locked; unlocks while it writes. */
static void write_samples(tc_saver *s)
{
    tc_run_sample *smp = s->qs;
    size_t n = s->nqs;
    s->qs = NULL, s->nqs = s->capqs = 0;
    pthread_mutex_unlock(&s->mu);
    char why[512] = "";
    tc_err e = tc_store_add_samples(s->store, s->run_id, smp, n, why, sizeof why);
    free(smp);
    pthread_mutex_lock(&s->mu);
    if (e != TC_OK) /* dropped, as a sampler's would be, and said */
        lose_samples(s, why);
}

/* One transaction of requests from the head (what was queued becomes the
 * head when there is none), then, if it landed, the queued samples.
 * Called locked; unlocks while it writes. */
static void write_round(tc_saver *s)
{
    if (!s->head && s->nq) {
        s->head = s->q, s->head_off = 0, s->head_n = s->nq;
        s->q = NULL, s->nq = s->capq = 0;
    }
    tc_req_record *recs = s->head;
    size_t off = s->head_off, k = head_left(s) < s->write_max ? head_left(s) : s->write_max;
    s->writing = 1;
    tc_err e = TC_OK;
    char why[512] = "";
    if (k) {
        pthread_mutex_unlock(&s->mu);
        e = tc_store_add_requests(s->store, s->run_id, recs + off, k, why, sizeof why);
        if (e == TC_OK)
            for (size_t i = off; i < off + k; i++)
                tc_req_record_clear(&recs[i]);
        pthread_mutex_lock(&s->mu);
    }
    if (e != TC_OK) { /* kept, first in line, tried again in a while */
        if (!s->refusing)
            s->refusing_since_ns = tc_mono_ns();
        s->refusing = 1;
        s->retry_at_ns = tc_mono_ns() + RETRY_NS;
        snprintf(s->why, sizeof s->why, "%s", why);
    } else {
        s->refusing = 0;
        s->head_off += k;
        if (s->head && s->head_off == s->head_n) {
            free(s->head);
            s->head = NULL;
        }
        if (s->nqs)
            write_samples(s);
    }
    s->writing = 0;
    pthread_cond_broadcast(&s->changed);
}

static void *saver_main(void *arg)
{
    tc_saver *s = arg;
    pthread_mutex_lock(&s->mu);
    /* Once told to quit, it still writes what the store takes. */
    while (!s->quit || (has_work(s) && !s->refusing)) {
        if (s->borrowed || !has_work(s))
            wait_until(s, 0);
        else if (s->refusing && tc_mono_ns() < s->retry_at_ns)
            wait_until(s, s->retry_at_ns);
        else
            write_round(s);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Starts the thread with the signals a user sends blocked: they go to
 * the thread that times the chunks, whose wait they end. */
static int start_thread(tc_saver *s)
{
    sigset_t block, old;
    sigemptyset(&block);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGCHLD};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&block, sigs[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&s->thread, NULL, saver_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

tc_err tc_saver_start(tc_store *store, int64_t run_id, double patience_s, tc_saver **out, char *err,
                      size_t errlen)
{
    *out = NULL;
    tc_saver *s = calloc(1, sizeof *s);
    if (!s)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    s->store = store;
    s->run_id = run_id;
    s->patience_ns = (int64_t)(patience_s * (double)TC_NS_PER_S);
    s->write_max = tc_store_is_pg(store) ? TC_SAVER_WRITE_MAX_PG : TC_SAVER_WRITE_MAX_SQLITE;
    pthread_condattr_t ca;
    int mutex = -1, cond = -1;
    if (pthread_condattr_init(&ca) == 0) {
        if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
            (mutex = pthread_mutex_init(&s->mu, NULL)) == 0)
            cond = pthread_cond_init(&s->changed, &ca);
        pthread_condattr_destroy(&ca);
    }
    if (cond == 0 && start_thread(s) == 0) {
        *out = s;
        return TC_OK;
    }
    if (cond == 0)
        pthread_cond_destroy(&s->changed);
    if (mutex == 0)
        pthread_mutex_destroy(&s->mu);
    free(s);
    return tc_fail(err, errlen, TC_ERR_IO, "cannot start the thread that saves the results");
}

static int refused(const tc_saver *s, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", s->why);
    return -1;
}

/* A copy of src in dst, its own chunk array; 0 or -1 (out of memory). */
static int copy_record(tc_req_record *dst, const tc_req_record *src)
{
    *dst = *src;
    dst->chunk_ns = NULL;
    dst->cap_chunks = 0;
    if (src->n_chunks == 0)
        return 0;
    dst->chunk_ns = malloc(src->n_chunks * sizeof *dst->chunk_ns);
    if (!dst->chunk_ns)
        return -1;
    memcpy(dst->chunk_ns, src->chunk_ns, src->n_chunks * sizeof *dst->chunk_ns);
    dst->cap_chunks = src->n_chunks;
    return 0;
}

/* Room for `need` elements of `size` bytes in *arr (capacity *cap),
 * doubling from `first`; 0 or -1 (out of memory, *arr untouched). */
static int grow(void **arr, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    void *p = realloc(*arr, c * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

int tc_saver_add_requests(tc_saver *s, const tc_req_record *recs, size_t n, char *err,
                          size_t errlen)
{
    pthread_mutex_lock(&s->mu);
    /* A store slower than the run: the adder waits here, as it would on
     * the store itself, rather than memory growing without end. */
    while (!s->refusing && s->nq + head_left(s) > 0 &&
           s->nq + head_left(s) + n > TC_SAVER_QUEUE_MAX)
        wait_until(s, 0);
    int rc = 0;
    if (s->refusing) {
        rc = refused(s, err, errlen);
    } else if (grow((void **)&s->q, &s->capq, s->nq + n, sizeof *s->q, 256) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    size_t i = 0;
    for (; rc == 0 && i < n; i++)
        if (copy_record(&s->q[s->nq + i], &recs[i]) != 0)
            rc = -1;
    if (rc == 0) {
        s->nq += n;
        pthread_cond_broadcast(&s->changed);
    } else if (i > 0) { /* nothing kept: the copies made so far go */
        for (size_t k = 0; k < i; k++)
            tc_req_record_clear(&s->q[s->nq + k]);
        snprintf(err, errlen, "out of memory");
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int tc_saver_add_samples(tc_saver *s, const tc_run_sample *samples, size_t n)
{
    pthread_mutex_lock(&s->mu);
    int rc = grow((void **)&s->qs, &s->capqs, s->nqs + n, sizeof *s->qs, 1024);
    if (rc == 0 && n) {
        memcpy(s->qs + s->nqs, samples, n * sizeof *samples);
        s->nqs += n;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int tc_saver_samples_lost(tc_saver *s, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->mu);
    int lost = s->samples_lost == 1;
    if (lost) {
        s->samples_lost = 2;
        snprintf(err, errlen, "%s", s->samples_why);
    }
    pthread_mutex_unlock(&s->mu);
    return lost;
}

/* Whether a flush may stop waiting on a refusing store. Locked. */
static int given_up(const tc_saver *s, int patient)
{
    return s->refusing && (!patient || tc_mono_ns() - s->refusing_since_ns >= s->patience_ns);
}

/* The requests not stored, why in err. Locked. */
static int64_t unsaved_locked(const tc_saver *s, char *err, size_t errlen)
{
    int64_t unsaved = (int64_t)(s->nq + head_left(s));
    if (unsaved)
        snprintf(err, errlen, "%s", s->why);
    return unsaved;
}

int64_t tc_saver_flush(tc_saver *s, int patient, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->mu);
    /* A write under way is waited for: what it holds is neither queued
     * nor saved until it ends. */
    while (s->writing || (has_work(s) && !given_up(s, patient)))
        wait_until(s, tc_mono_ns() + FLUSH_POLL_NS);
    if (s->nqs && patient) /* behind requests the store refuses to the end */
        lose_samples(s, s->why);
    int64_t unsaved = unsaved_locked(s, err, errlen);
    pthread_mutex_unlock(&s->mu);
    return unsaved;
}

tc_err tc_saver_with_store(tc_saver *s, tc_store *store, tc_err (*fn)(tc_store *store, void *arg),
                           void *arg)
{
    if (!s)
        return fn(store, arg);
    pthread_mutex_lock(&s->mu);
    /* In order: what was added before is stored first (unless refused). */
    while (s->writing || (has_work(s) && !s->refusing))
        wait_until(s, 0);
    s->borrowed = 1;
    pthread_mutex_unlock(&s->mu);
    tc_err e = fn(s->store, arg);
    pthread_mutex_lock(&s->mu);
    s->borrowed = 0;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mu);
    return e;
}

int64_t tc_saver_stop(tc_saver *s, char *err, size_t errlen)
{
    if (!s)
        return 0;
    (void)tc_saver_flush(s, 1, err, errlen);
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    /* Counted once the thread is gone: a last retry may have landed. */
    int64_t unsaved = unsaved_locked(s, err, errlen);
    if (s->head)
        free_records(s->head, s->head_off, s->head_n);
    free_records(s->q, 0, s->nq);
    free(s->qs);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return unsaved;
}
