/* The report's fine-tuning section (--train A B): the two training runs
 * side by side (step time, throughput, MFU, memory, energy, how each
 * ended), each one's step-time distribution, and the warnings and errors
 * each printed. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "page/page_chart.h"
#include "page/page_doc.h"

#define GIB (1024.0 * 1024 * 1024)

static const char *num(char *buf, size_t len, double v)
{
    return isfinite(v) ? tc_page_num(buf, len, v) : "n/a";
}

static const char *bytes(char *buf, size_t len, int64_t b)
{
    return b >= 0 ? tc_page_num(buf, len, (double)b / GIB) : "n/a";
}

static const char *text(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static const char *text(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return buf;
}

/* One row: a figure of both runs. */
static void row(tc_rw *w, int two, const char *name, const char *a, const char *b)
{
    const char *r[3] = {name, a, b};
    tc_rw_row(w, r, two ? 3 : 2);
}

static void figures_table(tc_rw *w, const tc_dossier *d, int two)
{
    const tc_view_train *v[2] = {&d->train[0], &d->train[1]};
    char a[2][64], la[2][160];
    for (int k = 0; k < 1 + two; k++)
        snprintf(la[k], sizeof la[k], "%s: run %lld %s", k ? "B" : "A", (long long)v[k]->run.id,
                 v[k]->run.label);
    const char *head[3] = {"figure", la[0], la[1]};
    tc_rw_table(w, "train-table", head, two ? 3 : 2);
    const char *out[2] = {"", ""};
#define ROW(name, expr)                                                                            \
    do {                                                                                           \
        for (int k = 0; k < 1 + two; k++) {                                                        \
            const tc_training_figures *f = &v[k]->fig;                                             \
            (void)f;                                                                               \
            out[k] = (expr);                                                                       \
        }                                                                                          \
        row(w, two, name, out[0], out[1]);                                                         \
    } while (0)
    ROW("ended", text(a[k], sizeof a[k], "%s%s", tc_train_end_name(v[k]->info.end),
                      tc_view_train_clean(v[k]) ? ", no error line" : ", with errors"));
    ROW("steps (in the steady window)",
        text(a[k], sizeof a[k], "%lld (%zu)", (long long)v[k]->info.steps, f->window_steps));
    ROW("step time mean (ms)", num(a[k], sizeof a[k], f->step_ms.n ? f->step_ms.mean : NAN));
    ROW("step time p50 (ms)", num(a[k], sizeof a[k], f->step_ms.n ? f->step_ms.p50 : NAN));
    ROW("step time p99 (ms)", num(a[k], sizeof a[k], f->step_ms.n ? f->step_ms.p99 : NAN));
    ROW("step time CV", num(a[k], sizeof a[k], f->cv));
    ROW("samples/s", num(a[k], sizeof a[k], f->samples_per_s));
    ROW("tokens/s", num(a[k], sizeof a[k], f->tokens_per_s));
    ROW("MFU (%)", num(a[k], sizeof a[k], 100 * f->mfu));
    ROW("peak memory, framework (GiB)", bytes(a[k], sizeof a[k], f->peak_framework_bytes));
    ROW("peak memory, devices (GiB)", bytes(a[k], sizeof a[k], f->peak_device_mem_bytes));
    ROW("J per step", num(a[k], sizeof a[k], f->joules_per_step));
    ROW("warning / error lines",
        text(a[k], sizeof a[k], "%lld / %lld", (long long)v[k]->warning_lines,
             (long long)v[k]->error_lines));
#undef ROW
    tc_rw_table_end(w);
}

/* Each run's steady step times as an empirical CDF. */
static void step_chart(tc_rw *w, const tc_dossier *d, int two)
{
    tc_chart c = {.title = "Step time distribution (CDF), each platform",
                  .xlabel = "step time (ms)",
                  .ylabel = "share of steps",
                  .simulated = d->train[0].run.simulated || (two && d->train[1].run.simulated)};
    double *y[2] = {NULL, NULL};
    static const char *const labels[2] = {"A", "B"};
    for (int k = 0; k < 1 + two; k++) {
        size_t n = d->n_step_ms[k];
        if (!n || !(y[k] = malloc(n * sizeof(double))))
            continue;
        for (size_t i = 0; i < n; i++)
            y[k][i] = (double)(i + 1) / (double)n;
        c.s[c.n++] =
            (tc_chart_series){labels[k],     d->step_ms[k], y[k], n, k ? TC_CHART_B : TC_CHART_A,
                              TC_CHART_LINE, NULL,          NULL};
    }
    if (c.n)
        tc_page_draw(w, &c, "Each platform's steady-window step times as a cumulative share.");
    else
        tc_rw_missing(w, "No step-time chart: neither run has two steps after its warm-up.");
    free(y[0]);
    free(y[1]);
}

static void warnings_table(tc_rw *w, const tc_dossier *d, int two)
{
    const char *head[] = {"run", "class", "message", "count", "first step"};
    size_t total = 0;
    for (int k = 0; k < 1 + two; k++)
        total += d->train[k].n_warnings;
    if (!total) {
        tc_rw_para(w, "Neither run printed a warning or an error line.");
        return;
    }
    tc_rw_table(w, "train-warnings", head, 5);
    for (int k = 0; k < 1 + two; k++) {
        const tc_view_train *v = &d->train[k];
        for (size_t i = 0; i < v->n_warnings; i++) {
            const tc_train_warning *x = &v->warnings[i];
            char cls[96], count[24], first[24];
            snprintf(cls, sizeof cls, "%s%s%s", tc_train_class_name(x->cls),
                     x->category[0] ? " " : "", x->category);
            snprintf(count, sizeof count, "%lld", (long long)x->count);
            snprintf(first, sizeof first, "%lld", (long long)x->first_step);
            const char *r[5] = {k ? "B" : "A", cls, x->message, count, first};
            tc_rw_row(w, r, 5);
        }
    }
    tc_rw_table_end(w);
}

void tc_page_sec_train(tc_rw *w, const tc_dossier *d)
{
    if (!d->has_train)
        return;
    int two = d->ask->train[1] != NULL;
    tc_rw_heading(w, 2, "train", "Fine-tuning: the training runs");
    tc_rw_para(w, "Measured by truecost train from what each trainer printed: the step time is "
                  "the gap between step records over the steady window (after the warm-up), "
                  "the rates the log's counts over that window.");
    figures_table(w, d, two);
    if (two && d->train[0].fig.step_ms.n && d->train[1].fig.step_ms.n) {
        double slow = d->train[1].fig.step_ms.mean / d->train[0].fig.step_ms.mean;
        char r[32];
        tc_rw_para(w, "B's mean step takes %sx A's: %s.", tc_page_num(r, sizeof r, slow),
                   tc_training_gap_reading(slow >= 1 ? slow : 1 / slow));
    }
    step_chart(w, d, two);
    warnings_table(w, d, two);
}
