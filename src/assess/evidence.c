/* Evidence for lockin, decide and report: the one gatherer, the gap table
 * and the decision's inputs (the stored kinds: evidence_runs.c,
 * evidence_stored.c). */
#include "assess/evidence.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assess/evidence_internal.h"
#include "assess/gaps.h"
#include "core/tc_number.h"

tc_err tc_evidence_unreadable(tc_err e)
{
    return e == TC_ERR_INVALID ? TC_ERR_IO : e;
}

void tc_evidence_note(tc_evidence *ev, const char *fmt, ...)
{
    if (ev->n_notes >= TC_EVIDENCE_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->notes[ev->n_notes++], sizeof ev->notes[0], fmt, ap);
    va_end(ap);
}

tc_err tc_evidence_read_gaps(const char *path, tc_evidence *ev, tc_lockin_overrides *ov, char *err,
                             size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = tc_gaps_read_file(path, &text, &len, err, errlen);
    if (rc != TC_OK)
        return tc_evidence_unreadable(rc);
    rc = tc_gaps_summary_parse(path, text, len, &ev->gaps, err, errlen);
    free(text);
    if (rc != TC_OK)
        return TC_ERR_INVALID;
    ev->has_gaps = 1;
    ov->has_operators = 1;
    ov->op_low = ev->gaps.t_low;
    ov->op_mode = ev->gaps.t_mode;
    ov->op_high = ev->gaps.t_high;
    snprintf(ov->op_source, sizeof ov->op_source, "gap table %s", path);
    return TC_OK;
}

/* ---- the decision's inputs --------------------------------------------------- */

static int answer(tc_lockin_answer a)
{
    return a == TC_LOCKIN_YES ? 1 : a == TC_LOCKIN_NO ? 0 : -1;
}

/* Training runs: the target's end and, when it is the worse gap (or the
 * only one), the training ratio as the performance gap. */
static void train_input(const tc_evidence *ev, tc_decide_input *in)
{
    if (!ev->has_train)
        return;
    in->has_train = 1;
    in->train_clean = ev->train_clean;
    in->train_hours = ev->train_hours;
    in->train_checkpoints = ev->train_checkpoints;
    snprintf(in->train_target, sizeof in->train_target, "%s", ev->train_target);
    if (ev->train_ratio > 0 && (!in->has_perf || ev->train_ratio < in->perf_ratio)) {
        in->has_perf = 1;
        in->perf_ratio = ev->train_ratio;
        snprintf(in->perf_basis, sizeof in->perf_basis, "training %s", ev->train_basis);
    } else if (in->has_perf) {
        snprintf(in->perf_basis, sizeof in->perf_basis, "serving; training at %.0f%%",
                 ev->train_ratio * 100);
    }
}

/* "softmax (cunn_SoftMaxForward, 11% of its kernel time), ...". */
static void suspects_words(const tc_evidence *ev, char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < ev->n_suspects && n < outlen; i++) {
        const tc_evidence_suspect *s = &ev->suspects[i];
        char share[16];
        n += (size_t)snprintf(out + n, outlen - n, "%s%s (%s%s, %s%% of its kernel time)",
                              i ? ", " : "", s->kernel_class, s->kernel,
                              s->kernels > 1 ? " and others" : "",
                              tc_number_sig(share, sizeof share, s->saving_share * 100, 2));
    }
}

void tc_evidence_decide_input(const tc_evidence *ev, const tc_lockin_result *r, tc_decide_input *in)
{
    memset(in, 0, sizeof *in);
    in->has_gaps = ev->has_gaps;
    in->gaps_missing = ev->gaps.missing;
    in->gaps_key_without_alternative = ev->gaps.key_without_alternative;
    in->gaps_key_unchecked = ev->gaps.key_unchecked;
    in->gaps_share_without_alternative = ev->gaps.share_without_alternative;
    in->has_target_run = ev->has_runs;
    in->target_completed = ev->target_completed;
    in->target_failed = ev->target_failed;
    in->target_status = ev->target_status;
    in->has_perf = ev->has_runs;
    in->perf_ratio = ev->ratio;
    train_input(ev, in);
    in->has_fit = ev->has_fit;
    in->fit_verdict = (int)ev->fit_verdict;
    snprintf(in->fit_card, sizeof in->fit_card, "%s", ev->fit_card);
    in->fit_need_bytes = ev->fit_need_bytes;
    in->fit_budget_bytes = ev->fit_budget_bytes;
    in->fit_spare_share = ev->fit_spare_share;
    snprintf(in->fit_largest, sizeof in->fit_largest, "%s", ev->fit_largest);
    in->has_kernels = ev->has_kernels;
    in->attention_fell_back = ev->attention_fell_back;
    suspects_words(ev, in->suspects, sizeof in->suspects);
    in->soak_passed = answer(r->inputs.soak_passed);
    in->has_soak = ev->has_soak;
    in->soak_outcome = ev->soak_outcome;
    in->soak_hours = ev->soak_hours;
    in->soak_measured = ev->soak_measured;
    in->soak_failed = ev->soak_failed;
    in->soak_outages = ev->soak_outages;
    in->soak_restarts = ev->soak_restarts;
    in->soak_downtime_s = ev->soak_downtime_s;
    snprintf(in->soak_reason, sizeof in->soak_reason, "%s", ev->soak_reason);
    in->profiler_skill = answer(r->inputs.profiler_skill);
    in->fallback_path = answer(r->inputs.fallback_path);
    in->has_economics = 1;
    in->p_net_positive = r->probability_net_positive;
    in->lockin_p50 = r->total.p50;
    in->saving = r->hardware_saving +
                 (r->has_running_saving ? r->running_saving_per_month * r->inputs.months.value : 0);
    double alt = r->inputs.price_alternative.value;
    in->price_ratio = alt > 0 ? r->inputs.price_incumbent.value / alt : 0;
}

/* ---- the gatherer ------------------------------------------------------------- */

typedef struct reader {
    tc_evidence_kind kind;
    int stored; /* reads the store */
    int (*given)(const tc_evidence_sources *src);
    tc_err (*read)(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                   tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen);
} reader;

static int gaps_given(const tc_evidence_sources *src)
{
    return src->gaps_file != NULL;
}

static int kernels_given(const tc_evidence_sources *src)
{
    return src->kernels_file != NULL;
}

static int fit_given(const tc_evidence_sources *src)
{
    return src->fit_file != NULL;
}

static int runs_given(const tc_evidence_sources *src)
{
    return src->run_a != NULL;
}

static int train_given(const tc_evidence_sources *src)
{
    return src->train_a != NULL;
}

static int fleet_given(const tc_evidence_sources *src)
{
    return src->at > 0;
}

static int soak_given(const tc_evidence_sources *src)
{
    return src->soak != NULL;
}

/* The gap table's errors name the option, as the user gave it. */
static tc_err read_gaps(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                        tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    (void)st, (void)a;
    char why[1024];
    tc_err rc = tc_evidence_read_gaps(src->gaps_file, ev, ov, why, sizeof why);
    return rc == TC_OK ? rc : tc_fail(err, errlen, rc, "--gaps: %s", why);
}

static tc_err read_kernels(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                           tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    (void)st;
    char why[1024];
    tc_err rc = tc_evidence_read_kernels(src->kernels_file, a, ev, ov, why, sizeof why);
    return rc == TC_OK ? rc : tc_fail(err, errlen, rc, "--kernels: %s", why);
}

static tc_err read_fit(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                       tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    (void)st, (void)a, (void)ov;
    char why[1024];
    tc_err rc = tc_evidence_read_fit(src->fit_file, ev, why, sizeof why);
    return rc == TC_OK ? rc : tc_fail(err, errlen, rc, "--fit: %s", why);
}

static tc_err read_fleet(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                         tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    (void)ev;
    return tc_evidence_read_fleet(st, src, a, ov, err, errlen);
}

static tc_err read_soak(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                        tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    (void)a;
    return tc_evidence_read_soak(st, src->soak, ev, ov, err, errlen);
}

/* Every kind, in the order it is read: a new kind is one row here. */
static const reader READERS[] = {
    {TC_EVIDENCE_GAPS, 0, gaps_given, read_gaps},
    {TC_EVIDENCE_KERNELS, 0, kernels_given, read_kernels},
    {TC_EVIDENCE_FIT, 0, fit_given, read_fit},
    {TC_EVIDENCE_RUNS, 1, runs_given, tc_evidence_read_runs},
    {TC_EVIDENCE_TRAIN, 1, train_given, tc_evidence_read_train},
    {TC_EVIDENCE_FLEET, 1, fleet_given, read_fleet},
    {TC_EVIDENCE_SOAK, 1, soak_given, read_soak},
};

int tc_evidence_kind_is_file(tc_evidence_kind kind)
{
    for (size_t i = 0; i < sizeof READERS / sizeof READERS[0]; i++)
        if (READERS[i].kind == kind)
            return !READERS[i].stored;
    return 0;
}

int tc_evidence_needs_store(const tc_evidence_sources *src)
{
    for (size_t i = 0; i < sizeof READERS / sizeof READERS[0]; i++)
        if (READERS[i].stored && READERS[i].given(src))
            return 1;
    return 0;
}

tc_err tc_evidence_gather(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                          tc_evidence *ev, tc_lockin_overrides *ov, tc_evidence_kind *failed,
                          char *err, size_t errlen)
{
    memset(ev, 0, sizeof *ev);
    for (size_t i = 0; i < sizeof READERS / sizeof READERS[0]; i++) {
        const reader *r = &READERS[i];
        if (!r->given(src))
            continue;
        tc_err rc = r->stored && !st ? tc_fail(err, errlen, TC_ERR_INVALID,
                                               "stored evidence given but no store opened")
                                     : r->read(st, src, a, ev, ov, err, errlen);
        if (rc != TC_OK) {
            if (failed)
                *failed = r->kind;
            return rc;
        }
    }
    return TC_OK;
}

tc_err tc_evidence_decide(const tc_lockin *a, const tc_evidence *ev, const tc_lockin_overrides *ov,
                          size_t samples, uint64_t seed, tc_lockin_result *r, tc_decide_result *d,
                          char *err, size_t errlen)
{
    tc_err rc = tc_lockin_evaluate(a, ov, samples, seed, r, err, errlen);
    if (rc != TC_OK)
        return rc;
    tc_decide_input in;
    tc_evidence_decide_input(ev, r, &in);
    tc_decide(&in, d);
    return TC_OK;
}
