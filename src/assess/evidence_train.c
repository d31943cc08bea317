/* Two training runs as evidence (`truecost train` on each platform): the
 * training throughput ratio, whether the minimal chain on the target
 * completed with no error, and a long run's stability. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "assess/evidence_internal.h"
#include "views/view_train.h"

static tc_err load(tc_store *st, const char *which, const char *role, tc_view_train *v, char *err,
                   size_t errlen)
{
    tc_run_info run;
    int found = 0;
    char why[512];
    tc_err rc = tc_store_find_run(st, which, &run, why, sizeof why);
    if (rc == TC_OK)
        rc = tc_view_train_load(st, &run, v, &found, why, sizeof why);
    if (rc != TC_OK)
        return tc_fail(err, errlen, tc_evidence_unreadable(rc), "--train: %s", why);
    if (!found)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--train %s: run %lld is not a training run (%s): give runs that "
                       "'truecost train' made",
                       which, (long long)run.id, role);
    return TC_OK;
}

/* The rate both sides know, most telling first: tokens/s, samples/s,
 * optimizer steps/s. */
static const char *common_rate(const tc_training_figures *a, const tc_training_figures *b,
                               double *ra, double *rb)
{
    if (a->tokens_per_s > 0 && b->tokens_per_s > 0) {
        *ra = a->tokens_per_s, *rb = b->tokens_per_s;
        return "tokens/s";
    }
    if (a->samples_per_s > 0 && b->samples_per_s > 0) {
        *ra = a->samples_per_s, *rb = b->samples_per_s;
        return "samples/s";
    }
    *ra = a->steps_per_s, *rb = b->steps_per_s;
    return "steps/s";
}

/* The target's end in words: "completed, no error line", or its first
 * error and how it ended. */
static void target_words(const tc_view_train *b, tc_evidence *ev)
{
    const tc_train_info *t = &b->info;
    /* The first error that names a cause (out of memory, a GPU error, ...)
     * over a Traceback line or a bare exception that only announce one. */
    const tc_train_warning *first = NULL, *named = NULL;
    for (size_t i = 0; i < b->n_warnings; i++) {
        tc_train_class c = b->warnings[i].cls;
        if (!tc_train_class_is_error(c))
            continue;
        if (!first)
            first = &b->warnings[i];
        if (!named && c != TC_TRAIN_TRACEBACK && c != TC_TRAIN_ERROR)
            named = &b->warnings[i];
    }
    if (named)
        first = named;
    int n = snprintf(ev->train_target, sizeof ev->train_target,
                     "training run %lld %s (%s), %lld steps, %lld error line(s)",
                     (long long)b->run.id, tc_status_name(b->run.status), tc_train_end_name(t->end),
                     (long long)t->steps, (long long)b->error_lines);
    if (first && n > 0 && (size_t)n < sizeof ev->train_target)
        snprintf(ev->train_target + n, sizeof ev->train_target - (size_t)n,
                 "; error: %s at step %lld: %.80s", tc_train_class_name(first->cls),
                 (long long)first->first_step, first->message);
}

tc_err tc_evidence_read_train(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                              tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    (void)a;
    tc_view_train va, vb;
    memset(&va, 0, sizeof va);
    memset(&vb, 0, sizeof vb);
    tc_err rc = load(st, src->train_a, "the incumbent", &va, err, errlen);
    if (rc == TC_OK)
        rc = load(st, src->train_b, "the alternative", &vb, err, errlen);
    if (rc == TC_OK) {
        double ra, rb;
        const char *basis = common_rate(&va.fig, &vb.fig, &ra, &rb);
        ev->has_train = 1;
        ev->train_clean = tc_view_train_clean(&vb);
        ev->train_ratio = ra > 0 && rb >= 0 ? rb / ra : NAN;
        snprintf(ev->train_basis, sizeof ev->train_basis, "%s", basis);
        ev->train_hours = (double)(vb.info.end_ns - vb.info.start_ns) / 3.6e12;
        ev->train_checkpoints = vb.info.checkpoints;
        target_words(&vb, ev);
        ev->simulated |= va.run.simulated || vb.run.simulated;
        ov->simulated |= ev->simulated;
        if (!(ra > 0))
            rc = tc_fail(err, errlen, TC_ERR_NOTFOUND,
                         "--train %s (the incumbent) has no step rate (fewer than two steps "
                         "after its warm-up): nothing to compare the alternative with",
                         src->train_a);
    }
    if (rc == TC_OK && ev->train_ratio > 0) {
        /* Serving and training both measured: the worse gap is the gap. */
        int worse = !ov->has_perf_ratio || ev->train_ratio < ov->perf_ratio;
        if (worse) {
            ov->has_perf_ratio = 1;
            ov->perf_ratio = ev->train_ratio;
            snprintf(ov->perf_source, sizeof ov->perf_source, "training %.24s vs %.24s (%.9s)%s",
                     src->train_a, src->train_b, ev->train_basis,
                     ev->simulated ? " (SIMULATED)" : "");
        }
    } else if (rc == TC_OK) {
        tc_evidence_note(ev, "--train %s (the alternative) has no step rate: no training ratio",
                         src->train_b);
    }
    tc_view_train_free(&va);
    tc_view_train_free(&vb);
    return rc;
}
