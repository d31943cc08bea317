#include "slo.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "core/tc_number.h"
#include "core/tc_text.h"

static const struct {
    const char *name;
    tc_slo slo;
} presets[] = {
    {"chat", {.has_ttft = 1, .has_tpot = 1, .ttft_ms = 200, .tpot_ms = 50}},
    {"code", {.has_ttft = 1, .has_tpot = 1, .ttft_ms = 500, .tpot_ms = 150}},
    {"rag", {.has_e2e = 1, .e2e_ms = 3000}},
};

static tc_err bad(char *err, size_t errlen, const char *item)
{
    return tc_fail(err, errlen, TC_ERR_INVALID,
                   "--slo: '%s' is not an objective: give a preset (chat, code, rag) or "
                   "ttft=DURATION,tpot=DURATION,e2e=DURATION with a unit (e.g. "
                   "ttft=200ms,tpot=50ms,e2e=5s)",
                   item);
}

/* One "key=duration" item into *s. */
static tc_err parse_item(const char *item, tc_slo *s, char *err, size_t errlen)
{
    static const char *const keys[] = {"ttft", "tpot", "e2e"};
    int *has[] = {&s->has_ttft, &s->has_tpot, &s->has_e2e};
    double *val[] = {&s->ttft_ms, &s->tpot_ms, &s->e2e_ms};
    const char *eq = strchr(item, '=');
    for (int k = 0; eq && k < 3; k++) {
        if ((size_t)(eq - item) != strlen(keys[k]) || strncmp(item, keys[k], strlen(keys[k])) != 0)
            continue;
        double ms;
        if (tc_parse_duration_ms(eq + 1, &ms) != 0 || !(ms > 0))
            return bad(err, errlen, item);
        if (*has[k])
            return tc_fail(err, errlen, TC_ERR_INVALID, "--slo: %s is given twice", keys[k]);
        *has[k] = 1;
        *val[k] = ms;
        return TC_OK;
    }
    return bad(err, errlen, item);
}

tc_err tc_slo_parse(const char *text, tc_slo *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(text, presets[i].name) == 0) {
            *out = presets[i].slo;
            snprintf(out->preset, sizeof out->preset, "%s", presets[i].name);
            return TC_OK;
        }
    char buf[256];
    if (strlen(text) >= sizeof buf || tc_list_has_empty(text))
        return bad(err, errlen, text);
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        tc_err e = parse_item(item, out, err, errlen);
        if (e != TC_OK)
            return e;
    }
    if (!out->has_ttft && !out->has_tpot && !out->has_e2e)
        return bad(err, errlen, text);
    return TC_OK;
}

/* "200ms", "1.5s": the shortest exact form. */
static void duration(double ms, char *buf, size_t len)
{
    if (ms >= 1000 && (long long)ms % 1000 == 0)
        snprintf(buf, len, "%gs", ms / 1000);
    else
        snprintf(buf, len, "%gms", ms);
}

void tc_slo_text(const tc_slo *s, char *buf, size_t len)
{
    if (s->preset[0]) {
        snprintf(buf, len, "%s", s->preset);
        return;
    }
    char d[3][32];
    duration(s->ttft_ms, d[0], sizeof d[0]);
    duration(s->tpot_ms, d[1], sizeof d[1]);
    duration(s->e2e_ms, d[2], sizeof d[2]);
    snprintf(buf, len, "%s%s%s%s%s%s%s%s", s->has_ttft ? "ttft=" : "", s->has_ttft ? d[0] : "",
             s->has_ttft && (s->has_tpot || s->has_e2e) ? "," : "", s->has_tpot ? "tpot=" : "",
             s->has_tpot ? d[1] : "", s->has_tpot && s->has_e2e ? "," : "",
             s->has_e2e ? "e2e=" : "", s->has_e2e ? d[2] : "");
}

int tc_slo_good(const tc_slo *s, const tc_req_record *r)
{
    if (r->error != TC_REQ_OK)
        return 0;
    int64_t ttft = tc_req_ttft_ns(r), e2e = tc_req_e2e_ns(r);
    double tpot = tc_req_tpot_ns(r);
    if (s->has_ttft && (ttft < 0 || (double)ttft / 1e6 > s->ttft_ms))
        return 0;
    if (s->has_tpot && tpot >= 0 && tpot / 1e6 > s->tpot_ms)
        return 0;
    if (s->has_e2e && (e2e < 0 || (double)e2e / 1e6 > s->e2e_ms))
        return 0;
    return 1;
}

void tc_goodput_add(tc_goodput *g, const tc_slo *s, const tc_req_record *r)
{
    if (r->warmup)
        return;
    g->measured++;
    g->completed += r->error == TC_REQ_OK;
    if (tc_slo_good(s, r)) {
        g->good++;
        g->good_output_tokens += r->output_tokens;
    }
}

void tc_goodput_add_share(tc_goodput *g, const tc_slo *s, const tc_req_record *r,
                          const tc_steady *w)
{
    if (r->warmup || !tc_slo_good(s, r))
        return;
    double share = tc_steady_share(w, r);
    g->window_good += share;
    if (r->n_chunks > 0)
        g->window_good_tokens += (double)r->output_tokens * share;
}

void tc_goodput_end(tc_goodput *g, double duration_s, const tc_steady *w)
{
    g->attainment = g->measured ? (double)g->good / (double)g->measured : 0;
    g->has_rates = duration_s > 0;
    g->requests_per_s = g->has_rates ? (double)g->good / duration_s : 0;
    g->output_tokens_per_s = g->has_rates ? (double)g->good_output_tokens / duration_s : 0;
    assert(g->good <= g->completed);
    g->has_window = w && w->has_window && w->seconds > 0;
    if (!g->has_window)
        return;
    g->window_requests_per_s = g->window_good / w->seconds;
    g->window_output_tokens_per_s = g->window_good_tokens / w->seconds;
    /* The good requests are some of the requests counted, share by share. */
    assert(g->window_good <= w->requests * (1 + 1e-9) + 1e-9);
}
