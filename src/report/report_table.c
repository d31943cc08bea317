#include "report_table.h"

#include <math.h>
#include <string.h>

#include "core/tc_number.h"
#include "core/tc_text.h"
#include "core/tc_time.h"

#define NA "n/a"

int tc_report_decimals(double v)
{
    double a = fabs(v);
    if (!(a > 0) || !isfinite(a))
        return TC_REPORT_DIGITS - 1;
    int d = TC_REPORT_DIGITS - 1 - (int)floor(log10(a));
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

/* v rounded to TC_REPORT_DIGITS significant digits when it has more
 * before the point (12345.6 -> 12350). */
static double round_integral(double v)
{
    double a = fabs(v);
    if (!(a >= 1e4) || !isfinite(a))
        return v;
    double unit = pow(10, floor(log10(a)) - (TC_REPORT_DIGITS - 1));
    return round(v / unit) * unit;
}

const char *tc_report_fmt_fixed(char *buf, size_t len, int valid, double v, int decimals)
{
    if (!valid || !isfinite(v))
        snprintf(buf, len, NA);
    else
        snprintf(buf, len, "%.*f", decimals, round_integral(v));
    return buf;
}

const char *tc_report_sig(char *buf, size_t len, double v)
{
    return tc_number_sig(buf, len, v, TC_REPORT_DIGITS);
}

void tc_report_method_pointer(FILE *out, const char *section)
{
    fprintf(out, "Definitions: 'truecost help method'; docs/method.md, \"%s\"\n", section);
}

const char *tc_report_fmt(char *buf, size_t len, int valid, double v)
{
    return tc_report_fmt_fixed(buf, len, valid, v, tc_report_decimals(v));
}

/* "2026-11-29T15:31:54Z" (seconds are enough for people), or n/a. */
static const char *date_text(int64_t wall_ns, char *buf, size_t len)
{
    char full[40];
    if (wall_ns <= 0 || !tc_rfc3339_ns(wall_ns, full, sizeof full)[0]) {
        snprintf(buf, len, NA);
        return buf;
    }
    snprintf(buf, len, "%.19sZ", full);
    return buf;
}

static void title(FILE *out, const tc_run_info *run, int simulated)
{
    char label[4 * sizeof run->label], model[4 * sizeof run->model];
    char ep[4 * sizeof run->endpoint];
    fprintf(out, "truecost run %lld", (long long)run->id);
    if (run->label[0])
        fprintf(out, " \"%s\"", tc_text_term(run->label, label, sizeof label));
    fprintf(out, " \xe2\x80\x94 %s at %s (%s)",
            run->model[0] ? tc_text_term(run->model, model, sizeof model) : "?",
            run->endpoint[0] ? tc_text_term(run->endpoint, ep, sizeof ep) : "?",
            tc_api_name(run->api));
    if (simulated)
        fprintf(out, " \xe2\x80\x94 SIMULATED");
    fputc('\n', out);
}

const char *tc_report_load_text(const tc_run_info *run, char *buf, size_t len)
{
    char shape[48] = "", cap[48] = "no cap on requests in flight";
    if (run->rate <= 0) {
        snprintf(buf, len, "closed loop, concurrency %d", run->concurrency);
        return buf;
    }
    if (run->arrival == TC_ARRIVAL_GAMMA)
        snprintf(shape, sizeof shape, " (burstiness %g)", run->burstiness);
    if (run->max_concurrency > 0)
        snprintf(cap, sizeof cap, "at most %d in flight", run->max_concurrency);
    snprintf(buf, len, "%s arrivals%s at %g requests/s, seed %llu, %s",
             tc_arrival_name(run->arrival), shape, run->rate, (unsigned long long)run->seed, cap);
    return buf;
}

const char *tc_report_lag_warning(const tc_run_info *run, const tc_run_metrics *m, char *buf,
                                  size_t len)
{
    if (!tc_run_metrics_lagging(m))
        return NULL;
    char cap[96] = "";
    if (run->max_concurrency > 0)
        snprintf(cap, sizeof cap, ", or its %d requests in flight (--max-concurrency) were busy",
                 run->max_concurrency);
    snprintf(buf, len,
             "schedule lag p99 %.3f ms is above %g ms: the client could not keep up with %g "
             "requests/s%s; TTFT and E2E count from the scheduled time, so they include the wait",
             m->schedule_lag_ms.p99, TC_SCHEDULE_LAG_LIMIT_MS, run->rate, cap);
    return buf;
}

static void run_line(FILE *out, const tc_run_info *run)
{
    char date[40], version[4 * sizeof run->server_version], conc[32], load[200];
    if (run->rate > 0) /* its shape gets a line of its own */
        snprintf(conc, sizeof conc, "open loop");
    else
        snprintf(conc, sizeof conc, "concurrency %d", run->concurrency);
    fprintf(out, "status %s, started %s, %s, server version %s\n", tc_status_name(run->status),
            date_text(run->created_wall_ns, date, sizeof date), conc,
            run->server_version[0] ? tc_text_term(run->server_version, version, sizeof version)
                                   : "unknown");
    if (run->rate > 0)
        fprintf(out, "%-14s%s\n", "load", tc_report_load_text(run, load, sizeof load));
}

static void requests_lines(FILE *out, const tc_run_metrics *m)
{
    char dur[16];
    fprintf(out, "%-14s%lld measured, %lld completed, %lld failed, %lld warm-up\n", "requests",
            (long long)m->requests.measured, (long long)m->requests.completed,
            (long long)m->requests.failed, (long long)m->requests.warmup);
    if (m->requests.retried)
        fprintf(out,
                "%-14s%lld retried once on a fresh connection: the server had closed the "
                "kept-alive one before any response byte (not failures)\n",
                "", (long long)m->requests.retried);
    fprintf(out, "%-14s%s%s\n", "duration",
            tc_report_fmt(dur, sizeof dur, m->has_duration, m->duration_s),
            m->has_duration ? " s" : "");
}

/* One precision per row, from its largest value, so the decimal points
 * of a row line up and small values keep their digits. */
static void latency_row(FILE *out, const char *name, const tc_summary *s)
{
    const double v[8] = {s->mean, s->stddev, s->min, s->p50, s->p90, s->p95, s->p99, s->max};
    double biggest = fabs(s->max) > fabs(s->min) ? s->max : s->min;
    int decimals = tc_report_decimals(fabs(s->mean) > fabs(biggest) ? s->mean : biggest);
    char buf[40];
    fprintf(out, "%-10s", name);
    for (int i = 0; i < 8; i++)
        fprintf(out, " %7s", tc_report_fmt_fixed(buf, sizeof buf, s->n > 0, v[i], decimals));
    fputc('\n', out);
}

static void latency_table(FILE *out, const tc_run_metrics *m)
{
    static const char *const cols[8] = {"mean", "stddev", "min", "p50", "p90", "p95", "p99", "max"};
    fprintf(out, "%-10s", "latency");
    for (int i = 0; i < 8; i++)
        fprintf(out, " %7s", cols[i]);
    fputc('\n', out);
    latency_row(out, "TTFT (ms)", &m->ttft_ms);
    latency_row(out, "ITL (ms)", &m->itl_ms);
    latency_row(out, "TPOT (ms)", &m->tpot_ms);
    latency_row(out, "E2E (ms)", &m->e2e_ms);
    if (!m->open_loop)
        return;
    latency_row(out, "Lag (ms)", &m->schedule_lag_ms);
    fprintf(out, "(open loop: TTFT and E2E count from each request's scheduled send time; Lag is "
                 "sent - scheduled)\n");
}

static void throughput_lines(FILE *out, const tc_run_metrics *m)
{
    char a[16], b[16], c[16];
    int ok = m->has_duration;
    fprintf(out, "%-14s%10s requests/s\n", "throughput",
            tc_report_fmt(a, sizeof a, ok, m->requests_per_s));
    fprintf(out, "%-14s%10s output tokens/s\n", "",
            tc_report_fmt(b, sizeof b, ok, m->output_tokens_per_s));
    fprintf(out, "%-14s%10s total tokens/s", "",
            tc_report_fmt(c, sizeof c, ok && m->has_prompt_tokens, m->total_tokens_per_s));
    /* Why it is missing when the output figure is there. */
    if (ok && !m->has_prompt_tokens)
        fprintf(out, " (no prompt count for %lld of %lld requests)", (long long)m->prompt_missing,
                (long long)m->requests.completed);
    fputc('\n', out);
}

/* The steady-state window, or why there is none: energy and cost use it. */
static void window_lines(FILE *out, const tc_run_metrics *m)
{
    const tc_steady *w = &m->window;
    if (!w->has_window) {
        fprintf(out,
                "%-14snot reached (too few requests for the concurrency)\n%-14senergy "
                "and cost use the whole run\n",
                "steady state", "");
        return;
    }
    char a[16], b[16];
    fprintf(out, "%-14s%.3f s to %.3f s of the run (%.3f s)\n", "steady state",
            (double)(w->from - m->first_send) / 1e9, (double)(w->to - m->first_send) / 1e9,
            w->seconds);
    fprintf(out, "%-14s%s output tokens/s, %s requests/s\n", "",
            tc_report_fmt(a, sizeof a, 1, w->output_tokens_per_s),
            tc_report_fmt(b, sizeof b, 1, w->requests_per_s));
    fprintf(out, "%-14s(energy, J/token and cost are read over this window)\n", "");
}

/* Goodput under the run's SLO, when it had one. */
static void goodput_line(FILE *out, const tc_run_metrics *m)
{
    if (!m->has_slo)
        return;
    char slo[TC_SLO_TEXT_MAX], a[16], b[16];
    const tc_goodput *g = &m->goodput;
    tc_slo_text(&m->slo, slo, sizeof slo);
    fprintf(out, "%-14sSLO %s: %lld of %lld measured requests good (%.1f%%)\n", "goodput", slo,
            (long long)g->good, (long long)g->measured, g->attainment * 100);
    fprintf(out, "%-14s%s good requests/s, %s good output tokens/s\n", "",
            tc_report_fmt(a, sizeof a, g->has_rates, g->requests_per_s),
            tc_report_fmt(b, sizeof b, g->has_rates, g->output_tokens_per_s));
}

static void tokens_line(FILE *out, const tc_run_metrics *m)
{
    char prompt[24];
    if (m->has_prompt_tokens)
        snprintf(prompt, sizeof prompt, "%lld", (long long)m->prompt_tokens);
    else
        snprintf(prompt, sizeof prompt, NA);
    fprintf(out, "%-14s%lld output, %s prompt (counted by: %s)\n", "tokens",
            (long long)m->output_tokens, prompt, tc_run_metrics_token_source_text(m));
}

static void decode_lines(FILE *out, const tc_run_metrics *m)
{
    char a[16], b[16];
    const tc_summary *c = &m->decode_tps, *s = &m->server_decode_tps;
    fprintf(out, "%-14sclient-measured: mean %s, p50 %s tokens/s\n", "decode speed",
            tc_report_fmt(a, sizeof a, c->n > 0, c->mean),
            tc_report_fmt(b, sizeof b, c->n > 0, c->p50));
    if (!m->has_server_decode) {
        fprintf(out, "%-14sserver-reported: not reported by the server\n", "");
        return;
    }
    fprintf(out, "%-14sserver-reported: mean %s, p50 %s tokens/s\n", "",
            tc_report_fmt(a, sizeof a, 1, s->mean), tc_report_fmt(b, sizeof b, 1, s->p50));
}

static void errors_line(FILE *out, const tc_run_metrics *m)
{
    int any = 0;
    fprintf(out, "%-14s", "errors");
    for (int k = TC_REQ_OK + 1; k < TC_REQ_ERROR_COUNT; k++) {
        if (m->errors[k] <= 0)
            continue;
        fprintf(out, "%s%s %lld", any ? ", " : "", tc_req_error_name((tc_req_error)k),
                (long long)m->errors[k]);
        any = 1;
    }
    fprintf(out, "%s\n", any ? "" : "none");
}

static tc_err stream_status(FILE *out)
{
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

tc_err tc_report_table(FILE *out, const tc_run_info *run, const tc_run_metrics *m, int color)
{
    (void)color;
    if (!out || !run || !m)
        return TC_ERR_INVALID;
    title(out, run, run->simulated || m->simulated);
    run_line(out, run);
    fputc('\n', out);
    requests_lines(out, m);
    fputc('\n', out);
    latency_table(out, m);
    char warning[400];
    if (tc_report_lag_warning(run, m, warning, sizeof warning))
        fprintf(out, "WARNING %s\n", warning);
    fputc('\n', out);
    throughput_lines(out, m);
    window_lines(out, m);
    goodput_line(out, m);
    tokens_line(out, m);
    decode_lines(out, m);
    errors_line(out, m);
    return stream_status(out);
}

/* Copies s into buf, clipped to `width` bytes with a final "~", never
 * cutting a UTF-8 sequence in two. */
static const char *clip(const char *s, size_t width, char *buf, size_t len)
{
    size_t n = strlen(s);
    if (n <= width) {
        snprintf(buf, len, "%s", s);
        return buf;
    }
    size_t keep = width > 0 ? width - 1 : 0;
    while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
        keep--;
    snprintf(buf, len, "%.*s~", (int)keep, s);
    return buf;
}

/* Two spaces between columns; text clipped so one run fits one line. */
#define RUNS_FMT "%4s  %-16s  %-12s  %-14s  %-20s  %-11s  %9s  %9s  %11s"

static void runs_header(FILE *out)
{
    fprintf(out, RUNS_FMT "\n", "ID", "DATE (UTC)", "LABEL", "MODEL", "ENDPOINT", "STATUS",
            "REQUESTS", "OUT TOK/S", "TTFT p50 ms");
}

/* "2026-11-29 15:31", or n/a. */
static const char *short_date(int64_t wall_ns, char *buf, size_t len)
{
    char full[40];
    date_text(wall_ns, full, sizeof full);
    if (strcmp(full, NA) == 0)
        snprintf(buf, len, NA);
    else
        snprintf(buf, len, "%.10s %.5s", full, full + 11);
    return buf;
}

/* The scheme says little in a list, and the width is needed. */
static const char *strip_scheme(const char *url)
{
    const char *p = strstr(url, "://");
    return p ? p + 3 : url;
}

static void runs_row(FILE *out, const tc_run_info *r, const tc_run_metrics *m)
{
    char id[24], date[40], label[32], model[32], ep[40], reqs[48], tps[16], ttft[16];
    char safe[3][4 * 512];
    tc_text_term(r->label[0] ? r->label : "-", safe[0], sizeof safe[0]);
    tc_text_term(r->model, safe[1], sizeof safe[1]);
    tc_text_term(strip_scheme(r->endpoint), safe[2], sizeof safe[2]);
    snprintf(id, sizeof id, "%lld", (long long)r->id);
    if (m)
        snprintf(reqs, sizeof reqs, "%lld/%lld", (long long)m->requests.completed,
                 (long long)m->requests.measured);
    else
        snprintf(reqs, sizeof reqs, NA);
    fprintf(out, RUNS_FMT, id, short_date(r->created_wall_ns, date, sizeof date),
            clip(safe[0], 12, label, sizeof label), clip(safe[1], 14, model, sizeof model),
            clip(safe[2], 20, ep, sizeof ep), tc_status_name(r->status), reqs,
            tc_report_fmt(tps, sizeof tps, m && m->has_duration, m ? m->output_tokens_per_s : 0),
            tc_report_fmt(ttft, sizeof ttft, m && m->ttft_ms.n > 0, m ? m->ttft_ms.p50 : 0));
    /* Simulated numbers are labelled wherever they are shown. */
    fprintf(out, "%s\n", r->simulated || (m && m->simulated) ? "  SIMULATED" : "");
}

tc_err tc_report_runs_table(FILE *out, const tc_run_info *runs, const tc_run_metrics *const *m,
                            size_t n, int color)
{
    (void)color;
    if (!out || (!runs && n > 0))
        return TC_ERR_INVALID;
    runs_header(out);
    for (size_t i = 0; i < n; i++)
        runs_row(out, &runs[i], m ? m[i] : NULL);
    return stream_status(out);
}
