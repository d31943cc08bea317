/* The Prometheus text format, line by line: comments skipped, each sample
 * line `name{label="value",...} value [timestamp]` read whole or refused. */
#include "telem_expo.h"
#include "core/tc_grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *p, *end; /* the rest of the line */
    tc_expo *e;
    size_t arena_used, cap_samples, cap_labels;
    int line;
    char *err;
    size_t errlen;
} parser;

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static void skip_blanks(parser *ps)
{
    while (ps->p < ps->end && is_blank(*ps->p))
        ps->p++;
}

static int name_start(char c, int metric)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':');
}

static int name_char(char c, int metric)
{
    return name_start(c, metric) || (c >= '0' && c <= '9');
}

static tc_err bad(parser *ps, const char *why)
{
    return tc_fail(ps->err, ps->errlen, TC_ERR_PARSE, "line %d: %s", ps->line, why);
}

/* Copies a name into the arena; NULL when there is none at p. */
static const char *take_name(parser *ps, int metric)
{
    const char *s = ps->p;
    if (s >= ps->end || !name_start(*s, metric))
        return NULL;
    while (ps->p < ps->end && name_char(*ps->p, metric))
        ps->p++;
    char *out = ps->e->arena + ps->arena_used;
    memcpy(out, s, (size_t)(ps->p - s));
    out[ps->p - s] = '\0';
    ps->arena_used += (size_t)(ps->p - s) + 1;
    return out;
}

/* A quoted label value, unescaped into the arena. */
static tc_err take_value(parser *ps, const char **out)
{
    if (ps->p >= ps->end || *ps->p != '"')
        return bad(ps, "a label value must be in double quotes");
    ps->p++;
    char *dst = ps->e->arena + ps->arena_used, *w = dst;
    for (;;) {
        if (ps->p >= ps->end)
            return bad(ps, "a label value is not closed");
        char c = *ps->p++;
        if (c == '"')
            break;
        if (c == '\0')
            return bad(ps, "a NUL byte in a label value");
        if (c == '\\') {
            if (ps->p >= ps->end)
                return bad(ps, "a label value is not closed");
            c = *ps->p++;
            if (c == 'n')
                c = '\n';
            else if (c != '\\' && c != '"')
                return bad(ps, "an unknown escape in a label value (only \\\\, \\\" and \\n)");
        }
        *w++ = c;
    }
    *w = '\0';
    ps->arena_used += (size_t)(w - dst) + 1;
    *out = dst;
    return TC_OK;
}

static tc_err push_label(parser *ps, const char *name, const char *value, size_t first)
{
    tc_expo *e = ps->e;
    for (size_t i = first; i < e->n_labels; i++)
        if (strcmp(e->labels[i].name, name) == 0)
            return bad(ps, "a label is given twice");
    if (e->n_labels - first >= TC_EXPO_MAX_LABELS)
        return bad(ps, "too many labels on one sample");
    if (tc_grow(&e->labels, &ps->cap_labels, e->n_labels, sizeof *e->labels, 64) < 0)
        return TC_ERR_NOMEM;
    e->labels[e->n_labels++] = (tc_expo_label){name, value};
    return TC_OK;
}

static tc_err take_labels(parser *ps, size_t first)
{
    ps->p++; /* the '{' */
    for (;;) {
        skip_blanks(ps);
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return TC_OK;
        }
        const char *name = take_name(ps, 0), *value = NULL;
        if (!name)
            return bad(ps, "expected a label name or '}'");
        skip_blanks(ps);
        if (ps->p >= ps->end || *ps->p != '=')
            return bad(ps, "expected '=' after a label name");
        ps->p++;
        skip_blanks(ps);
        tc_err rc = take_value(ps, &value);
        if (rc == TC_OK)
            rc = push_label(ps, name, value, first);
        if (rc != TC_OK)
            return rc;
        skip_blanks(ps);
        if (ps->p < ps->end && *ps->p == ',')
            ps->p++;
        else if (ps->p >= ps->end || *ps->p != '}')
            return bad(ps, "expected ',' or '}' after a label");
    }
}

/* The next blank-separated token as a NUL-terminated copy in buf. */
static int take_token(parser *ps, char *buf, size_t len)
{
    const char *s = ps->p;
    while (ps->p < ps->end && !is_blank(*ps->p))
        ps->p++;
    size_t n = (size_t)(ps->p - s);
    if (n == 0 || n >= len || memchr(s, '\0', n))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return 0;
}

static tc_err take_number(parser *ps, double *out)
{
    char buf[64], *end;
    if (take_token(ps, buf, sizeof buf) < 0)
        return bad(ps, "expected a value after the metric");
    *out = strtod(buf, &end);
    if (*end != '\0' || end == buf)
        return bad(ps, "the value is not a number");
    skip_blanks(ps);
    if (ps->p < ps->end) { /* a timestamp: whole milliseconds, ignored */
        if (take_token(ps, buf, sizeof buf) < 0)
            return bad(ps, "the timestamp is too long");
        strtoll(buf, &end, 10);
        if (*end != '\0' || !(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')))
            return bad(ps, "the timestamp is not a whole number");
        skip_blanks(ps);
        if (ps->p < ps->end)
            return bad(ps, "text after the timestamp");
    }
    return TC_OK;
}

static tc_err push_sample(parser *ps, const tc_expo_sample *s)
{
    tc_expo *e = ps->e;
    if (tc_grow(&e->samples, &ps->cap_samples, e->n, sizeof *e->samples, 64) < 0)
        return TC_ERR_NOMEM;
    e->samples[e->n++] = *s;
    return TC_OK;
}

static tc_err parse_line(parser *ps)
{
    skip_blanks(ps);
    if (ps->p >= ps->end || *ps->p == '#')
        return TC_OK;
    size_t first = ps->e->n_labels;
    tc_expo_sample s = {0};
    if (!(s.name = take_name(ps, 1)))
        return bad(ps, "expected a metric name");
    skip_blanks(ps);
    tc_err rc = TC_OK;
    if (ps->p < ps->end && *ps->p == '{')
        rc = take_labels(ps, first);
    if (rc == TC_OK) {
        skip_blanks(ps);
        rc = take_number(ps, &s.value);
    }
    if (rc != TC_OK)
        return rc;
    s.n_labels = (int)(ps->e->n_labels - first);
    s.labels = (const tc_expo_label *)(uintptr_t)first; /* an index until the end */
    return push_sample(ps, &s);
}

tc_err tc_expo_parse(const char *text, size_t len, tc_expo *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len > TC_EXPO_MAX_BYTES)
        return tc_fail(err, errlen, TC_ERR_INVALID, "the exposition is over %u bytes",
                       TC_EXPO_MAX_BYTES);
    if (!(out->arena = malloc(len + 1)))
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    parser ps = {.e = out, .err = err, .errlen = errlen};
    const char *p = text, *end = text + len;
    tc_err rc = TC_OK;
    while (rc == TC_OK && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        ps.p = p;
        ps.end = nl ? nl : end;
        ps.line++;
        rc = parse_line(&ps);
        p = nl ? nl + 1 : end;
    }
    if (rc == TC_ERR_NOMEM)
        tc_fail(err, errlen, rc, "out of memory");
    if (rc != TC_OK)
        out->n = 0; /* half a scrape is no scrape */
    for (size_t i = 0; i < out->n; i++) {
        tc_expo_sample *s = &out->samples[i];
        s->labels = s->n_labels ? out->labels + (uintptr_t)s->labels : NULL;
    }
    return rc;
}

const char *tc_expo_label_of(const tc_expo_sample *s, const char *name)
{
    for (int i = 0; i < s->n_labels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return NULL;
}

void tc_expo_free(tc_expo *e)
{
    if (!e)
        return;
    free(e->samples);
    free(e->labels);
    free(e->arena);
    memset(e, 0, sizeof *e);
}
