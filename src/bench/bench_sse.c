#include "bench_sse.h"

#include <string.h>

void tc_sse_init(tc_sse *s, size_t max_event_bytes, tc_sse_event_fn on_event, void *ctx)
{
    memset(s, 0, sizeof *s);
    s->on_event = on_event;
    s->ctx = ctx;
    s->max_event_bytes = max_event_bytes ? max_event_bytes : TC_SSE_MAX_EVENT_BYTES;
    s->first_line = 1;
}

void tc_sse_reset(tc_sse *s)
{
    tc_buf_reset(&s->line);
    tc_buf_reset(&s->data);
    s->has_data = 0;
    s->skip_lf = 0;
    s->first_line = 1;
    s->failed = TC_OK;
}

void tc_sse_free(tc_sse *s)
{
    if (!s)
        return;
    tc_buf_free(&s->line);
    tc_buf_free(&s->data);
    s->has_data = 0;
}

static tc_err too_big(tc_sse *s, char *err, size_t errlen)
{
    s->failed = TC_ERR_PARSE;
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "an event of the stream is larger than %zu bytes, the most truecost accepts",
                   s->max_event_bytes);
}

static tc_err dispatch(tc_sse *s)
{
    if (!s->has_data)
        return TC_OK; /* an event without data (e.g. only "event: ping") is no event */
    s->has_data = 0;
    tc_err rc = s->on_event(s->ctx, s->data.data ? s->data.data : "", s->data.len);
    tc_buf_reset(&s->data);
    return rc;
}

/* One complete line, its terminator removed. */
static tc_err process_line(tc_sse *s, const char *line, size_t n, char *err, size_t errlen)
{
    if (s->first_line && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
        line += 3;
        n -= 3;
    }
    s->first_line = 0;
    if (n == 0)
        return dispatch(s);
    if (line[0] == ':')
        return TC_OK;
    const char *colon = memchr(line, ':', n);
    size_t name_len = colon ? (size_t)(colon - line) : n;
    if (name_len != 4 || memcmp(line, "data", 4) != 0)
        return TC_OK; /* event, id, retry and unknown fields do not change the data */
    const char *value = colon ? colon + 1 : line + n;
    size_t vlen = (size_t)(line + n - value);
    if (vlen > 0 && value[0] == ' ') {
        value++;
        vlen--;
    }
    if (s->data.len + vlen + 1 > s->max_event_bytes)
        return too_big(s, err, errlen);
    if (s->has_data)
        tc_buf_append(&s->data, "\n", 1);
    tc_buf_append(&s->data, value, vlen);
    s->has_data = 1;
    return tc_buf_status(&s->data);
}

/* Index of the first '\n' or '\r' in bytes[i, len), or len. memchr is
 * vectorised; '\r' is rare, so it is only looked for before the '\n'. */
static size_t line_end(const char *bytes, size_t i, size_t len)
{
    const char *lf = memchr(bytes + i, '\n', len - i);
    size_t j = lf ? (size_t)(lf - bytes) : len;
    const char *cr = memchr(bytes + i, '\r', j - i);
    return cr ? (size_t)(cr - bytes) : j;
}

tc_err tc_sse_feed(tc_sse *s, const char *bytes, size_t len, char *err, size_t errlen)
{
    if (s->failed)
        return too_big(s, err, errlen);
    size_t i = 0;
    while (i < len) {
        if (s->skip_lf) {
            s->skip_lf = 0;
            if (bytes[i] == '\n') {
                i++;
                continue;
            }
        }
        size_t j = line_end(bytes, i, len);
        if (s->line.len + (j - i) > s->max_event_bytes)
            return too_big(s, err, errlen);
        if (j == len) { /* the line goes on in a later slice */
            tc_buf_append(&s->line, bytes + i, j - i);
            return tc_buf_status(&s->line);
        }
        s->skip_lf = bytes[j] == '\r';
        tc_err rc;
        if (s->line.len == 0) { /* whole line in this slice: no copy */
            rc = process_line(s, bytes + i, j - i, err, errlen);
        } else {
            tc_buf_append(&s->line, bytes + i, j - i);
            rc = tc_buf_status(&s->line);
            if (rc == TC_OK)
                rc = process_line(s, s->line.data, s->line.len, err, errlen);
            tc_buf_reset(&s->line);
        }
        if (rc != TC_OK)
            return rc;
        i = j + 1;
    }
    return TC_OK;
}

tc_err tc_sse_finish(tc_sse *s, char *err, size_t errlen)
{
    if (s->failed)
        return too_big(s, err, errlen);
    tc_buf_reset(&s->line);
    s->skip_lf = 0;
    return dispatch(s);
}
