/* A training run's lines: split, read, stamped and saved. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"
#include "measure_train_internal.h"

void tc_measure_train_say(train_ctx *c, const char *fmt, ...)
{
    char text[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->cb->notice)
        c->cb->notice(c->cb->ctx, text);
}

static int is_binary(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)line[i];
        if (b < 0x20 && b != '\t' && b != '\r' && b != 0x1b) /* ESC: terminal colours */
            return 1;
    }
    return 0;
}

static void add_step(train_ctx *c, tc_train_step *s, int64_t t_ns)
{
    if (c->has_step && s->step <= c->last_step)
        return; /* read before (a --metrics file read again), or out of order */
    if (c->n_pending == c->cap_pending) {
        size_t cap = c->cap_pending ? 2 * c->cap_pending : 64;
        tc_train_step *grown = realloc(c->pending, cap * sizeof *grown);
        if (!grown) {
            snprintf(c->info.note, sizeof c->info.note, "out of memory: steps after %lld lost",
                     (long long)c->last_step);
            return;
        }
        c->pending = grown;
        c->cap_pending = cap;
    }
    s->t_ns = t_ns;
    s->wall_ns = tc_wall_ns() - (tc_mono_ns() - t_ns);
    if (isnan(s->samples) && c->info.samples_per_step > 0)
        s->samples = c->info.samples_per_step;
    if (isnan(s->tokens) && c->info.tokens_per_step > 0)
        s->tokens = c->info.tokens_per_step;
    c->pending[c->n_pending++] = *s;
    c->has_step = 1;
    c->last_step = s->step;
    c->info.steps++;
    if (c->cb->step)
        c->cb->step(c->cb->ctx, s, &c->info);
}

void tc_measure_train_line(train_ctx *c, int is_metrics, const char *line, size_t len, int64_t t_ns)
{
    c->info.lines++;
    if (is_binary(line, len))
        c->info.binary_lines++;
    tc_trainer *r = is_metrics ? c->mreader : c->reader;
    tc_trainer_line l;
    if (!tc_trainer_read_line(r, line, len, &l, &c->info))
        return;
    if (l.is_step && (is_metrics || !c->mreader)) {
        add_step(c, &l.step, t_ns);
        c->info.format = tc_trainer_format(r);
    }
    if (l.is_final && !c->mreader)
        c->info.format = tc_trainer_format(r);
    if (l.checkpoint)
        c->info.checkpoints++;
    if (l.is_warning) {
        if (tc_train_class_is_error(l.cls))
            c->out->errors++;
        else
            c->out->warnings++;
        if (tc_trainer_tally_add(&c->tally, l.cls, l.category, l.message,
                                 c->has_step ? c->last_step : 0) != 0)
            snprintf(c->info.note, sizeof c->info.note, "out of memory: warnings not counted");
    }
}

/* The first '\n' or '\r' in buf[0..n), or NULL: a carriage return ends a
 * line too, as on a terminal (a progress bar redrawn in place is a line
 * each time, not one line of megabytes that hides what comes after). */
static const char *line_end(const char *buf, size_t n)
{
    const char *nl = memchr(buf, '\n', n);
    const char *cr = memchr(buf, '\r', nl ? (size_t)(nl - buf) : n);
    return cr ? cr : nl;
}

void tc_measure_train_feed(train_ctx *c, train_src *s, const char *buf, size_t n, int64_t t_ns)
{
    while (n > 0) {
        const char *nl = line_end(buf, n);
        size_t take = nl ? (size_t)(nl - buf) : n;
        if (!s->dropping) {
            size_t room = c->max_line - s->len;
            size_t copy = take < room ? take : room;
            memcpy(s->buf + s->len, buf, copy);
            s->len += copy;
            if (copy < take) { /* too long: read what fits, drop the rest */
                s->buf[s->len] = '\0';
                tc_measure_train_line(c, s->is_metrics, s->buf, s->len, t_ns);
                c->info.long_lines++;
                s->len = 0;
                s->dropping = 1;
            }
        }
        if (!nl)
            return;
        if (!s->dropping && s->len > 0) {
            s->buf[s->len] = '\0';
            tc_measure_train_line(c, s->is_metrics, s->buf, s->len, t_ns);
        }
        s->len = 0;
        s->dropping = 0;
        buf = nl + 1;
        n -= take + 1;
    }
}

void tc_measure_train_flush_src(train_ctx *c, train_src *s, int64_t t_ns)
{
    if (s->len > 0 && !s->dropping) {
        s->buf[s->len] = '\0';
        tc_measure_train_line(c, s->is_metrics, s->buf, s->len, t_ns);
    }
    s->len = 0;
    s->dropping = 0;
}

void tc_measure_train_save(train_ctx *c, int64_t every_ns)
{
    int64_t now = tc_mono_ns();
    if (every_ns > 0 && now - c->last_save_ns < every_ns)
        return;
    c->last_save_ns = now;
    char err[512];
    const tc_train_warning *w = c->tally.changed || every_ns == 0 ? c->tally.w : NULL;
    tc_err e = tc_store_train_save(c->store, &c->info, c->pending, c->stored, c->n_pending, w,
                                   c->tally.n, err, sizeof err);
    if (e != TC_OK) {
        snprintf(c->save_err, sizeof c->save_err, "%s", err);
        if (!c->save_said++)
            tc_measure_train_say(c, "the steps were not saved (kept, tried again): %s", err);
        return;
    }
    c->save_err[0] = '\0';
    c->stored += (int64_t)c->n_pending;
    c->n_pending = 0;
    if (w)
        c->tally.changed = 0;
}
