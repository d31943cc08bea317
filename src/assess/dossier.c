/* Gathering the report's inputs (report_data.h). */
#include "assess/dossier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/view_stored.h"
#include "analysis/roofline_run.h"
#include "views/view_figures.h"
#include "views/view_sweep.h"
#include "views/view_compare.h"
#include "views/view_frontier.h"
#include "views/view_series.h"

/* Runs at more than one concurrency or rate are a sweep. */
static int loads_differ(const tc_sweep_point *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (p[i].open_loop != p[0].open_loop || p[i].concurrency != p[0].concurrency ||
            p[i].rate != p[0].rate)
            return 1;
    return 0;
}

/* Each point's goodput under the report's --slo, as `show RUN --slo`
 * judges a run: its requests streamed again against the objectives. */
static tc_err apply_slo(tc_store *st, const tc_slo *slo, tc_dossier_side *s, char *err,
                        size_t errlen)
{
    for (size_t i = 0; slo && i < s->set.n; i++) {
        tc_run_metrics *m = &s->f[i].m;
        tc_err rc = tc_view_apply_slo(st, &s->set.runs[i], slo, m, err, errlen);
        if (rc != TC_OK)
            return rc;
        tc_sweep_point_goodput(m, &s->pts[i]);
    }
    return TC_OK;
}

/* Every sweep point's timeline (the charted one's is s->series). */
static tc_err load_point_series(tc_store *st, tc_dossier_side *s, char *err, size_t errlen)
{
    s->point_series = calloc(s->set.n, sizeof *s->point_series);
    if (!s->point_series)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory for the sweep's timelines");
    for (size_t i = 0; i < s->set.n; i++) {
        tc_err rc = i == s->charted ? TC_OK
                                    : tc_view_run_series(st, &s->set.runs[i], &s->f[i].m,
                                                         &s->point_series[i], err, errlen);
        if (rc != TC_OK)
            return rc;
    }
    s->point_series[s->charted] = s->series;
    return TC_OK;
}

/* A sweep's point of most output tokens/s per GPU among the complete
 * ones: the top of its frontier; -1 when none has a throughput. */
static int peak_of(const tc_dossier_side *s)
{
    int best = -1;
    for (size_t i = 0; i < s->set.n; i++)
        if (s->pts[i].complete && s->pts[i].tokens_per_s_per_gpu > 0 &&
            (best < 0 || s->pts[i].tokens_per_s_per_gpu > s->pts[best].tokens_per_s_per_gpu))
            best = (int)i;
    return best;
}

/* The side's cost: a sweep at its peak, one load as it would be run (the
 * mean of its points would price loads nobody runs together); a run or a
 * group of repeats at the mean of its runs (tc_dossier_priced_at_peak). */
static void price_side(tc_dossier_side *s, const tc_cost_profile *profile)
{
    const tc_cost_measured *m =
        tc_dossier_priced_at_peak(s) ? &s->f[s->peak].cost_in : &s->sum.mean;
    s->has_cost = tc_cost_compute(profile, m, &s->cost) == TC_OK;
}

int tc_dossier_priced_at_peak(const tc_dossier_side *s)
{
    return s->is_sweep && s->peak >= 0;
}

static tc_err load_side(tc_store *st, const char *which, const char *label,
                        const tc_cost_profile *profile, const tc_slo *slo, tc_dossier_side *s,
                        char *err, size_t errlen)
{
    s->label = label;
    s->profile = profile;
    s->knee = -1;
    tc_err rc = tc_view_runset(st, which, &s->set, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_runset_figures(st, &s->set, TC_FIGURES_SUMMARY, &s->f, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_sweep(st, &s->set, &s->pts, err, errlen);
    if (rc == TC_OK)
        rc = apply_slo(st, slo, s, err, errlen);
    if (rc != TC_OK)
        return rc;
    for (size_t i = 0; i < s->set.n; i++)
        s->simulated |= s->set.runs[i].simulated;
    s->is_sweep = s->set.n > 1 && loads_differ(s->pts, s->set.n);
    s->peak = -1;
    if (s->is_sweep) {
        s->peak = peak_of(s);
        s->knee = tc_sweep_knee(s->pts, s->set.n, &s->knee_why);
        s->charted = s->knee >= 0 ? (size_t)s->knee : s->set.n - 1;
    }
    rc = tc_view_fingerprint(st, s->set.runs[0].id, &s->fingerprint, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_run_series(st, &s->set.runs[s->charted], &s->f[s->charted].m, &s->series, err,
                                errlen);
    if (rc == TC_OK && s->is_sweep)
        rc = load_point_series(st, s, err, errlen);
    if (rc != TC_OK || !profile)
        return rc;
    tc_figures_summarise(s->set.is_group ? "the group" : "the run", &s->set, s->f, &s->sum);
    price_side(s, profile);
    return TC_OK;
}

/* A group that `truecost sweep` made: compare judges two of them on their
 * frontiers. */
static int is_sweep_group(const tc_dossier_side *s)
{
    return s->set.is_group && s->set.n && strcmp(s->set.runs[0].group_kind, "sweep") == 0;
}

/* compare A B, as `truecost compare` computes it; a failure is a missing
 * section, not an error of the report. */
static void load_compare(tc_store *st, const tc_dossier_ask *ask, tc_dossier *d)
{
    char err[1024];
    tc_compare_opts o = {ask->resamples_compare, ask->seed, ask->has_claim, ask->claim};
    const tc_cost_profile *pa = ask->profile[0], *pb = ask->profile[1];
    if (!pa != !pb)
        pa = pb = NULL; /* compare prices both sides or neither */
    tc_roofline_table t = {0};
    tc_err rc = tc_view_compare_platform(st, ask->which[0], "A", pa, &d->cmp.a, err, sizeof err);
    if (rc == TC_OK)
        rc = tc_view_compare_platform(st, ask->which[1], "B", pb, &d->cmp.b, err, sizeof err);
    if (rc == TC_OK)
        rc = tc_compare_prepare(&d->cmp, err, sizeof err);
    if (rc == TC_OK && tc_roofline_table_load(&t, NULL, err, sizeof err) == TC_OK)
        tc_compare_bound(&d->cmp, &t);
    tc_roofline_table_free(&t);
    if (rc == TC_OK)
        rc = tc_compare_finish(&d->cmp, &o, err, sizeof err);
    if (rc == TC_OK)
        d->has_compare = 1;
    else
        snprintf(d->compare_missing, sizeof d->compare_missing, "compare: %s", err);
}

static void load_frontier(tc_store *st, const tc_dossier_ask *ask, tc_dossier *d)
{
    char err[1024];
    const tc_cost_profile *pa = ask->profile[0];
    const tc_cost_profile *pb = ask->profile[1] ? ask->profile[1] : pa;
    if (!pa) {
        snprintf(d->frontier_missing, sizeof d->frontier_missing,
                 "no cost profile: give --profile FILE (or --profile-a and --profile-b)");
        return;
    }
    if (!d->by_frontier && !d->a.is_sweep && !(d->two && d->b.is_sweep)) {
        snprintf(d->frontier_missing, sizeof d->frontier_missing,
                 "no sweep: give a SWEEP (truecost sweep) to draw frontiers");
        return;
    }
    d->fr = calloc(1, sizeof *d->fr);
    tc_err rc = d->fr ? TC_OK : tc_fail(err, sizeof err, TC_ERR_NOMEM, "out of memory");
    if (rc == TC_OK)
        rc = tc_view_frontier_side(st, ask->which[0], "A", pa, ask->slo, &d->fa, err, sizeof err);
    if (rc == TC_OK && d->two)
        rc = tc_view_frontier_side(st, ask->which[1], "B", pb, ask->slo, &d->fb, err, sizeof err);
    tc_frontier_ask fa = {.targets = ask->targets,
                          .n_targets = ask->n_targets,
                          .resamples = ask->resamples_frontier,
                          .seed = ask->seed,
                          .has_claim = ask->has_claim && d->two,
                          .claim = ask->claim,
                          .demand = ask->demand};
    if (rc == TC_OK)
        rc = tc_frontier_compute(&d->fa, d->two ? &d->fb : NULL, &fa, d->fr, err, sizeof err);
    if (rc == TC_OK)
        d->has_frontier = 1;
    else
        snprintf(d->frontier_missing, sizeof d->frontier_missing, "frontier: %s", err);
}

/* The evidence decide reads for `decide FILE --runs A B` with the same
 * profiles, gap table and soak: with --at and two sweeps also their fleets
 * at the first target, as `decide --at X [--demand D]`. */
static void evidence_sources(const tc_dossier_ask *ask, const tc_dossier *d,
                             tc_evidence_sources *src)
{
    memset(src, 0, sizeof *src);
    src->gaps_file = ask->gaps;
    src->kernels_file = ask->kernels;
    src->fit_file = ask->fit;
    src->train_a = ask->train[0];
    src->train_b = ask->train[1];
    src->soak = ask->soak;
    if (!d->two)
        return;
    src->run_a = ask->which[0];
    src->run_b = ask->which[1];
    if (ask->profile_path[0] && ask->profile_path[1]) {
        src->profile_a = ask->profile_path[0];
        src->profile_b = ask->profile_path[1];
    }
    if (ask->at_given && ask->n_targets && src->profile_a && d->a.is_sweep && d->b.is_sweep) {
        src->at = ask->targets[0];
        src->demand = ask->demand;
    }
}

/* lockin FILE with the evidence, then decide on it, as `decide` does with
 * its default samples and seed. A bad assessment or gap table is the
 * user's error; other evidence that does not read leaves the section
 * saying why, with no decision (decide would refuse it too). */
static tc_err load_lockin(tc_store *st, const tc_dossier_ask *ask, tc_dossier *d, char *err,
                          size_t errlen)
{
    tc_lockin as;
    tc_err rc = tc_lockin_load(ask->assessment, &as, err, errlen);
    if (rc != TC_OK)
        return rc;
    tc_evidence_sources src;
    evidence_sources(ask, d, &src);
    tc_evidence_kind failed = TC_EVIDENCE_GAPS;
    char why[1024];
    rc = tc_evidence_gather(st, &src, &as, &d->ev, &d->ov, &failed, why, sizeof why);
    if (rc != TC_OK && tc_evidence_kind_is_file(failed))
        return tc_fail(err, errlen, rc, "%s", why);
    if (rc != TC_OK) {
        snprintf(d->lockin_missing, sizeof d->lockin_missing,
                 "the evidence does not read, so there is no decision (decide refuses it too): %s",
                 why);
        return TC_OK;
    }
    if (tc_evidence_decide(&as, &d->ev, &d->ov, TC_DOSSIER_LOCKIN_SAMPLES, TC_DOSSIER_LOCKIN_SEED,
                           &d->lockin, &d->decision, why, sizeof why) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s: %s", ask->assessment, why);
    d->has_lockin = 1;
    return TC_OK;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* --train A B: both training runs with their steady step times, sorted
 * (a run that is not a training run is the user's error, named). */
static tc_err load_train(tc_store *st, const tc_dossier_ask *ask, tc_dossier *d, char *err,
                         size_t errlen)
{
    for (int k = 0; k < 2 && ask->train[k]; k++) {
        tc_run_info run;
        int found = 0;
        tc_err rc = tc_store_find_run(st, ask->train[k], &run, err, errlen);
        if (rc == TC_OK)
            rc = tc_view_train_load(st, &run, &d->train[k], &found, err, errlen);
        if (rc == TC_OK && !found)
            rc = tc_fail(err, errlen, TC_ERR_INVALID,
                         "--train %s: run %lld is not a training run: give runs that "
                         "'truecost train' made",
                         ask->train[k], (long long)run.id);
        const tc_view_train *v = &d->train[k];
        if (rc == TC_OK)
            rc = tc_training_step_times(&v->info, v->steps, v->n_steps, &d->step_ms[k],
                                        &d->n_step_ms[k]);
        if (rc != TC_OK)
            return rc;
        if (d->n_step_ms[k])
            qsort(d->step_ms[k], d->n_step_ms[k], sizeof(double), by_value);
        d->simulated |= v->run.simulated;
    }
    d->has_train = ask->train[0] != NULL;
    return TC_OK;
}

/* Without an assessment the kernels and fit documents are only drawn:
 * read here as the gatherer reads them; a bad one is the user's error. */
static tc_err load_documents(const tc_dossier_ask *ask, tc_dossier *d, char *err, size_t errlen)
{
    char why[1024];
    tc_lockin_overrides unused = {0};
    tc_err rc = TC_OK;
    if (ask->kernels &&
        (rc = tc_evidence_read_kernels(ask->kernels, NULL, &d->ev, &unused, why, sizeof why)))
        return tc_fail(err, errlen, rc, "--kernels: %s", why);
    if (ask->fit && (rc = tc_evidence_read_fit(ask->fit, &d->ev, why, sizeof why)))
        return tc_fail(err, errlen, rc, "--fit: %s", why);
    return TC_OK;
}

tc_err tc_dossier_load(tc_store *st, const tc_dossier_ask *ask, tc_dossier *d, char *err,
                       size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->ask = ask;
    d->two = ask->which[1] != NULL;
    tc_err rc = load_side(st, ask->which[0], "A", ask->profile[0], ask->slo, &d->a, err, errlen);
    if (rc == TC_OK && d->two)
        rc = load_side(st, ask->which[1], "B", ask->profile[1] ? ask->profile[1] : ask->profile[0],
                       ask->slo, &d->b, err, errlen);
    if (rc != TC_OK)
        return rc;
    d->simulated = d->a.simulated || (d->two && d->b.simulated);
    d->by_frontier = d->two && (ask->at_given || (is_sweep_group(&d->a) && is_sweep_group(&d->b)));
    if (d->two)
        load_compare(st, ask, d);
    else
        snprintf(d->compare_missing, sizeof d->compare_missing,
                 "one platform: give a second RUN, GROUP or SWEEP to compare");
    load_frontier(st, ask, d);
    rc = load_train(st, ask, d, err, errlen);
    if (rc != TC_OK)
        return rc;
    return ask->assessment ? load_lockin(st, ask, d, err, errlen)
                           : load_documents(ask, d, err, errlen);
}

static void side_free(tc_dossier_side *s)
{
    tc_runset_figures_free(s->f, s->set.n);
    free(s->pts);
    free(s->point_series);
    json_decref(s->fingerprint);
    tc_runset_free(&s->set);
}

void tc_dossier_free(tc_dossier *d)
{
    if (!d)
        return;
    side_free(&d->a);
    side_free(&d->b);
    tc_compare_result_free(&d->cmp);
    tc_frontier_side_free(&d->fa);
    tc_frontier_side_free(&d->fb);
    free(d->fr);
    tc_lockin_result_free(&d->lockin);
    for (int k = 0; k < 2; k++) {
        tc_view_train_free(&d->train[k]);
        free(d->step_ms[k]);
    }
    memset(d, 0, sizeof *d);
}
