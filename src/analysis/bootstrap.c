/* Percentile bootstrap of a figure of two independent samples. */
#include "analysis/bootstrap.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "core/tc_sort.h"

double tc_boot_stat(const tc_boot_sample *s)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < s->n; i++) {
        num += s->num[i];
        den += s->den[i];
    }
    return den != 0 ? s->scale * num / den : NAN;
}

/* A uniform index below n without modulo bias worth the name (Lemire's
 * multiply-shift: the bias is n / 2^64). */
static size_t draw_index(tc_rng *rng, size_t n)
{
    return (size_t)(((unsigned __int128)tc_rng_next(rng) * n) >> 64);
}

double tc_boot_resample(const tc_boot_sample *s, tc_rng *rng)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = draw_index(rng, s->n);
        num += s->num[k];
        den += s->den[k];
    }
    return den != 0 ? s->scale * num / den : NAN;
}

double tc_boot_ratio_b_over_a(double stat_a, double stat_b, void *ctx)
{
    (void)ctx;
    return stat_a != 0 ? stat_b / stat_a : NAN;
}

static tc_err check_args(const tc_boot_sample *a, const tc_boot_sample *b, tc_boot_map map,
                         int resamples, double level, tc_boot_ci *out, char *err, size_t errlen)
{
    if (!a || !b || !map || !out)
        return tc_fail(err, errlen, TC_ERR_INVALID, "bootstrap: NULL argument");
    if (a->n == 0 || b->n == 0 || !a->num || !a->den || !b->num || !b->den)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "bootstrap: a side has no values to resample (no completed request)");
    if (resamples < TC_BOOT_MIN_RESAMPLES)
        return tc_fail(err, errlen, TC_ERR_INVALID, "bootstrap: %d resamples; at least %d",
                       resamples, TC_BOOT_MIN_RESAMPLES);
    if (!(level >= 0.5 && level <= 0.999))
        return tc_fail(err, errlen, TC_ERR_INVALID, "bootstrap: level %g is outside 0.5..0.999",
                       level);
    return TC_OK;
}

/* Resample r draws from its own stream, seeded by (seed, r): the figures
 * are the same whether one thread or eight draw them. */
static void draw_range(const tc_boot_sample *a, const tc_boot_sample *b, uint64_t seed, int from,
                       int to, double *sa, double *sb)
{
    for (int r = from; r < to; r++) {
        tc_rng rng;
        tc_rng_seed(&rng, tc_hash3(seed, (uint64_t)r, 0x626f6f74)); /* "boot" */
        sa[r] = tc_boot_resample(a, &rng);
        sb[r] = tc_boot_resample(b, &rng);
    }
}

typedef struct draw_job {
    const tc_boot_sample *a, *b;
    uint64_t seed;
    int from, to;
    double *sa, *sb;
} draw_job;

static void *draw_thread(void *arg)
{
    draw_job *j = arg;
    draw_range(j->a, j->b, j->seed, j->from, j->to, j->sa, j->sb);
    return NULL;
}

/* Below this many draws in all, threads cost more than they save. */
#define PARALLEL_DRAWS 4000000.0
#define MAX_THREADS 8

void tc_boot_draw(const tc_boot_sample *a, const tc_boot_sample *b, int resamples, uint64_t seed,
                  double *sa, double *sb)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
    if ((double)resamples * (double)(a->n + b->n) < PARALLEL_DRAWS)
        n = 1;
    pthread_t th[MAX_THREADS];
    draw_job jobs[MAX_THREADS];
    int started = 0;
    for (int i = 0; i < n; i++) {
        jobs[i] = (draw_job){a,
                             b,
                             seed,
                             (int)((long long)resamples * i / n),
                             (int)((long long)resamples * (i + 1) / n),
                             sa,
                             sb};
        /* Job 0 runs here; a thread that cannot start runs here too. */
        if (i > 0 && pthread_create(&th[started], NULL, draw_thread, &jobs[i]) == 0)
            started++;
        else if (i > 0)
            draw_thread(&jobs[i]);
    }
    draw_thread(&jobs[0]);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

tc_err tc_boot_ci_from_draws(const tc_boot_sample *a, const tc_boot_sample *b, const double *sa,
                             const double *sb, int resamples, uint64_t seed, tc_boot_map map,
                             void *ctx, double level, tc_boot_ci *out, char *err, size_t errlen)
{
    tc_err e = check_args(a, b, map, resamples, level, out, err, errlen);
    if (e != TC_OK)
        return e;
    *out = (tc_boot_ci){.level = level, .resamples = resamples, .seed = seed};
    out->point = map(tc_boot_stat(a), tc_boot_stat(b), ctx);
    if (!isfinite(out->point))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "bootstrap: the measured figure itself is "
                       "not a number (a zero throughput or cost?)");
    double *v = malloc((size_t)resamples * sizeof *v);
    if (!v)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "bootstrap: %d resamples", resamples);
    int used = 0;
    for (int r = 0; r < resamples; r++) {
        double x = map(sa[r], sb[r], ctx);
        if (isfinite(x))
            v[used++] = x;
    }
    out->used = used;
    if (used < resamples - resamples / 10) {
        free(v);
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "bootstrap: only %d of %d resamples gave a number", used, resamples);
    }
    out->lo = tc_boot_percentile(v, (size_t)used, 50.0 * (1 - level));
    out->hi = tc_boot_percentile(v, (size_t)used, 50.0 * (1 + level));
    free(v);
    return TC_OK;
}

tc_err tc_boot_ci_compute(const tc_boot_sample *a, const tc_boot_sample *b, tc_boot_map map,
                          void *ctx, int resamples, uint64_t seed, double level, tc_boot_ci *out,
                          char *err, size_t errlen)
{
    tc_err e = check_args(a, b, map, resamples, level, out, err, errlen);
    if (e != TC_OK)
        return e;
    double *sa = malloc((size_t)resamples * sizeof *sa),
           *sb = malloc((size_t)resamples * sizeof *sb);
    if (!sa || !sb) {
        free(sa);
        free(sb);
        return tc_fail(err, errlen, TC_ERR_NOMEM, "bootstrap: %d resamples", resamples);
    }
    tc_boot_draw(a, b, resamples, seed, sa, sb);
    e = tc_boot_ci_from_draws(a, b, sa, sb, resamples, seed, map, ctx, level, out, err, errlen);
    free(sa);
    free(sb);
    return e;
}

tc_claim_verdict tc_claim_judge(const tc_boot_ci *ci, double claim)
{
    if (ci->lo >= claim)
        return TC_CLAIM_SUPPORTED;
    if (ci->hi < claim)
        return TC_CLAIM_REFUTED;
    return TC_CLAIM_INCONCLUSIVE;
}

const char *tc_claim_verdict_name(tc_claim_verdict v)
{
    switch (v) {
    case TC_CLAIM_SUPPORTED:
        return "supported";
    case TC_CLAIM_REFUTED:
        return "refuted";
    default:
        return "inconclusive";
    }
}

double tc_boot_percentile(double *v, size_t n, double q)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            v[k++] = v[i];
    if (k == 0)
        return NAN;
    tc_sort_double(v, k);
    return tc_stats_percentile(v, k, q);
}
