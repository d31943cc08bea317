#include "report_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"

/* Builders record a failed allocation in *failed instead of checking every
 * call: json_object_set_new() already frees the value on failure and
 * refuses a NULL one, so the document is simply dropped at the end. */
static void put(json_t *obj, const char *key, json_t *v, int *failed)
{
    if (!obj || json_object_set_new(obj, key, v) != 0)
        *failed = 1;
}

/* A NaN or infinity is not JSON (jansson refuses it): null instead. */
static json_t *num(int valid, double v)
{
    return valid && isfinite(v) ? json_real(v) : json_null();
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n = c < 0x80                 ? 1
               : c >= 0xC2 && c <= 0xDF ? 2
               : (c & 0xF0) == 0xE0     ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

/* Text from outside (a server's error message cut at 200 bytes, a label)
 * may not be UTF-8, which JSON requires: each bad byte becomes U+FFFD. */
json_t *tc_report_json_string(const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (v)
        return v;
    size_t len = strlen(s), o = 0;
    char *clean = malloc(len * 3 + 1);
    if (!clean)
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len((const unsigned char *)s + i);
        if (n == 0) {
            memcpy(clean + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(clean + o, s + i, n);
        o += n;
        i += n;
    }
    clean[o] = '\0';
    v = json_string(clean);
    free(clean);
    return v;
}

/* "" means unknown in tc_run_info. */
static json_t *str_or_null(const char *s)
{
    return s && s[0] ? tc_report_json_string(s) : json_null();
}

static json_t *created_json(int64_t wall_ns)
{
    char buf[40];
    if (wall_ns <= 0)
        return json_null();
    return str_or_null(tc_rfc3339_ns(wall_ns, buf, sizeof buf));
}

/* An object built with put(): itself, or NULL (freed) when a part failed. */
static json_t *finish(json_t *o, int failed)
{
    if (failed) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *summary_json(const tc_summary *s)
{
    int failed = 0, ok = s->n > 0;
    json_t *o = json_object();
    put(o, "mean", num(ok, s->mean), &failed);
    put(o, "stddev", num(ok, s->stddev), &failed);
    put(o, "min", num(ok, s->min), &failed);
    put(o, "p50", num(ok, s->p50), &failed);
    put(o, "p90", num(ok, s->p90), &failed);
    put(o, "p95", num(ok, s->p95), &failed);
    put(o, "p99", num(ok, s->p99), &failed);
    put(o, "max", num(ok, s->max), &failed);
    return finish(o, failed);
}

static json_t *run_json(const tc_run_info *run)
{
    int failed = 0;
    json_t *o = json_object();
    put(o, "id", json_integer(run->id), &failed);
    put(o, "label", str_or_null(run->label), &failed);
    put(o, "status", tc_report_json_string(run->status), &failed);
    put(o, "created", created_json(run->created_wall_ns), &failed);
    put(o, "endpoint", tc_report_json_string(run->endpoint), &failed);
    put(o, "api", json_string(tc_api_name(run->api)), &failed);
    put(o, "model", tc_report_json_string(run->model), &failed);
    put(o, "simulated", json_boolean(run->simulated), &failed);
    put(o, "concurrency", json_integer(run->concurrency), &failed);
    put(o, "server_version", str_or_null(run->server_version), &failed);
    return finish(o, failed);
}

static json_t *requests_json(const tc_run_counts *c)
{
    return json_pack("{sIsIsIsI}", "measured", (json_int_t)c->measured, "completed",
                     (json_int_t)c->completed, "failed", (json_int_t)c->failed, "warmup",
                     (json_int_t)c->warmup);
}

static json_t *metrics_json(const tc_run_metrics *m)
{
    int failed = 0;
    json_t *o = json_object();
    put(o, "ttft_ms", summary_json(&m->ttft_ms), &failed);
    put(o, "itl_ms", summary_json(&m->itl_ms), &failed);
    put(o, "tpot_ms", summary_json(&m->tpot_ms), &failed);
    put(o, "e2e_ms", summary_json(&m->e2e_ms), &failed);
    return finish(o, failed);
}

static json_t *throughput_json(const tc_run_metrics *m)
{
    int failed = 0, ok = m->has_duration;
    json_t *o = json_object();
    put(o, "requests_per_s", num(ok, m->requests_per_s), &failed);
    put(o, "output_tokens_per_s", num(ok, m->output_tokens_per_s), &failed);
    put(o, "total_tokens_per_s", num(ok && m->has_prompt_tokens, m->total_tokens_per_s), &failed);
    return finish(o, failed);
}

static json_t *tokens_json(const tc_run_metrics *m)
{
    int failed = 0;
    const char *src = tc_run_metrics_token_source(m);
    const char *psrc = tc_run_metrics_prompt_source(m);
    json_t *o = json_object();
    put(o, "output", json_integer(m->output_tokens), &failed);
    /* null, not a partial sum, when a request's server gave no count. */
    put(o, "prompt", m->has_prompt_tokens ? json_integer(m->prompt_tokens) : json_null(), &failed);
    put(o, "source", src ? json_string(src) : json_null(), &failed);
    put(o, "prompt_source", psrc ? json_string(psrc) : json_null(), &failed);
    put(o, "prompt_missing", json_integer(m->prompt_missing), &failed);
    return finish(o, failed);
}

static json_t *server_json(const tc_run_metrics *m)
{
    if (!m->has_server_decode)
        return json_null();
    const tc_summary *s = &m->server_decode_tps;
    int failed = 0;
    json_t *speed = json_object();
    put(speed, "mean", num(1, s->mean), &failed);
    put(speed, "p50", num(1, s->p50), &failed);
    json_t *o = json_object();
    put(o, "decode_tokens_per_s", speed, &failed);
    return finish(o, failed);
}

static json_t *errors_json(const tc_run_metrics *m)
{
    int failed = 0;
    json_t *o = json_object();
    for (int k = TC_REQ_OK + 1; k < TC_REQ_ERROR_COUNT; k++)
        if (m->errors[k] > 0)
            put(o, tc_req_error_name((tc_req_error)k), json_integer(m->errors[k]), &failed);
    return finish(o, failed);
}

json_t *tc_report_run_json(const tc_run_info *run, const tc_run_metrics *m)
{
    if (!run || !m)
        return NULL;
    int failed = 0;
    json_t *doc = json_object();
    /* First, so nobody reads the figures without seeing the label. */
    if (run->simulated || m->simulated) {
        put(doc, "simulated", json_true(), &failed);
        put(doc, "note", json_string(TC_REPORT_SIM_NOTE), &failed);
    }
    put(doc, "run", run_json(run), &failed);
    put(doc, "requests", requests_json(&m->requests), &failed);
    put(doc, "duration_s", num(m->has_duration, m->duration_s), &failed);
    put(doc, "metrics", metrics_json(m), &failed);
    put(doc, "throughput", throughput_json(m), &failed);
    put(doc, "tokens", tokens_json(m), &failed);
    put(doc, "decode_tokens_per_s", summary_json(&m->decode_tps), &failed);
    put(doc, "server", server_json(m), &failed);
    put(doc, "errors", errors_json(m), &failed);
    if (failed) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

static json_t *run_row_json(const tc_run_info *run, const tc_run_metrics *m)
{
    int failed = 0;
    json_t *o = json_object();
    put(o, "id", json_integer(run->id), &failed);
    put(o, "label", str_or_null(run->label), &failed);
    put(o, "status", tc_report_json_string(run->status), &failed);
    put(o, "created", created_json(run->created_wall_ns), &failed);
    put(o, "endpoint", tc_report_json_string(run->endpoint), &failed);
    put(o, "model", tc_report_json_string(run->model), &failed);
    put(o, "api", json_string(tc_api_name(run->api)), &failed);
    put(o, "simulated", json_boolean(run->simulated), &failed);
    put(o, "requests", m ? requests_json(&m->requests) : json_null(), &failed);
    put(o, "output_tokens_per_s", num(m && m->has_duration, m ? m->output_tokens_per_s : 0),
        &failed);
    put(o, "ttft_p50_ms", num(m && m->ttft_ms.n > 0, m ? m->ttft_ms.p50 : 0), &failed);
    return finish(o, failed);
}

json_t *tc_report_runs_json(const tc_run_info *runs, const tc_run_metrics *const *m, size_t n)
{
    if (!runs && n > 0)
        return NULL;
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (json_array_append_new(arr, run_row_json(&runs[i], m ? m[i] : NULL)) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

tc_err tc_report_json_dump(FILE *out, const json_t *doc, char *err, size_t errlen)
{
    if (!out || !doc)
        return tc_fail(err, errlen, TC_ERR_INVALID, "nothing to write");
    /* 12 significant digits: exact for the figures' precision, and 9.1
     * prints as 9.1 rather than 9.0999999999999996. */
    errno = 0;
    if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) != 0 ||
        fputc('\n', out) == EOF || fflush(out) == EOF)
        return tc_fail(err, errlen, TC_ERR_IO, "writing JSON: %s",
                       errno ? strerror(errno) : "write failed");
    return TC_OK;
}
