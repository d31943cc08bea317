/* A soak's documents. */
#include "report_soak.h"

#include <math.h>
#include <string.h>

#include "core/tc_json.h"

/* "1h02m", "5m30s", "45s". */
static void span_text(double s, char *buf, size_t len)
{
    long t = (long)llround(s);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%.1fs", s);
}

static void num(char *buf, size_t len, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(buf, len, fmt, v);
    else
        snprintf(buf, len, "-");
}

void tc_report_soak_progress(char *buf, size_t len, double elapsed_s, double total_s,
                             const tc_soak_window *last, int outages, double downtime_s,
                             int restarts, int down)
{
    char el[32], tot[32], tps[32] = "-", ttft[32] = "-", tpot[32] = "-";
    span_text(elapsed_s, el, sizeof el);
    span_text(total_s, tot, sizeof tot);
    if (last) {
        num(tps, sizeof tps, "%.1f", last->tok_s);
        num(ttft, sizeof ttft, "%.0f", last->ttft_p50_ms);
        num(tpot, sizeof tpot, "%.1f", last->tpot_p50_ms);
    }
    snprintf(buf, len,
             "%s/%s  window: %s tok/s, TTFT p50 %s ms, TPOT p50 %s ms, %lld errors  outages %d "
             "(%.1f s down)%s  restarts %d",
             el, tot, tps, ttft, tpot, last ? (long long)last->errors : 0LL, outages, downtime_s,
             down ? " DOWN NOW" : "", restarts);
}

static void trend_line(FILE *out, const char *what, double v, double lo, double hi,
                       const char *unit)
{
    if (isfinite(v))
        fprintf(out, "  %-22s %+.2f %s (95%% interval %+.2f to %+.2f)\n", what, v, unit, lo, hi);
    else
        fprintf(out, "  %-22s not measured (or fewer than 3 windows)\n", what);
}

static void print_verdict(FILE *out, const tc_soak_view *v)
{
    const tc_soak_verdict *d = v->verdict;
    char cov[32], dur[32], win[32];
    span_text(v->plan->covered_s, cov, sizeof cov);
    span_text(v->plan->duration_s, dur, sizeof dur);
    span_text(v->plan->window_s, win, sizeof win);
    fprintf(out, "soak (run %lld%s%s): %s of %s in %zu windows of %s%s\n", (long long)v->run->id,
            v->run->label[0] ? ", " : "", v->run->label, cov, dur, v->n_windows, win,
            v->run->simulated ? " (SIMULATED server)" : "");
    fprintf(out, "verdict: %s\n", tc_soak_outcome_name(d->outcome));
    for (int i = 0; i < d->n_reasons; i++)
        fprintf(out, "  - %s\n", d->reasons[i]);
    if (!d->complete)
        fprintf(out,
                "  - %s: %s of the planned %s measured (status %s)%s; resume it with "
                "'truecost soak --resume %lld'\n",
                d->outcome == TC_SOAK_FAIL ? "also unfinished" : "unfinished", cov, dur,
                tc_status_name(v->run->status),
                v->run->status == TC_RUN_RUNNING
                    ? " (still running, or its process was killed before it could say so)"
                    : "",
                (long long)v->run->id);
    fprintf(out,
            "requests %lld, errors %lld (error rate %.4f outside outages, limit %.4f), %d error "
            "burst(s)\n",
            (long long)d->requests, (long long)d->errors, d->error_rate, v->plan->max_error_rate,
            d->error_bursts);
    fprintf(out,
            "outages %d, downtime %.1f s (limit %.1f s), longest %.1f s, %.2f per day; server "
            "restarts %d\n",
            d->outages, d->downtime_s, v->plan->max_downtime_s, d->longest_s,
            tc_soak_outages_per_day(d), d->restarts);
    fprintf(out, "trends per hour (limit %g%% per hour):\n", v->plan->max_drift_pct);
    trend_line(out, "output tokens/s", d->tput_pct_h, d->tput_lo_pct_h, d->tput_hi_pct_h, "%");
    trend_line(out, "TPOT p50", d->tpot_pct_h, d->tpot_lo_pct_h, d->tpot_hi_pct_h, "%");
    trend_line(out, "server RSS", d->rss_mib_h, d->rss.lo, d->rss.hi, "MiB");
    trend_line(out, "GPU memory", d->gpu_mib_h, d->gpu_mem.lo, d->gpu_mem.hi, "MiB");
}

static void print_windows(FILE *out, const tc_soak_view *v)
{
    fprintf(out, "\n%5s %8s %6s %5s %8s %7s %7s %7s %7s %7s %8s %8s %6s\n", "win", "start", "reqs",
            "errs", "tok/s", "ttft50", "ttft99", "tpot50", "tpot99", "watts", "gpu_MiB", "rss_MiB",
            "down_s");
    /* A long soak: at most 60 rows, every kth window. */
    size_t step = v->n_windows > 60 ? (v->n_windows + 59) / 60 : 1;
    for (size_t i = 0; i < v->n_windows; i += step) {
        const tc_soak_window *w = &v->windows[i];
        char st[32], c[8][16];
        span_text(w->start_s, st, sizeof st);
        num(c[0], 16, "%.1f", w->tok_s);
        num(c[1], 16, "%.0f", w->ttft_p50_ms);
        num(c[2], 16, "%.0f", w->ttft_p99_ms);
        num(c[3], 16, "%.1f", w->tpot_p50_ms);
        num(c[4], 16, "%.1f", w->tpot_p99_ms);
        num(c[5], 16, "%.0f", w->avg_power_w);
        num(c[6], 16, "%.0f", w->gpu_mem_bytes < 0 ? NAN : (double)w->gpu_mem_bytes / 1048576.0);
        num(c[7], 16, "%.1f", w->rss_bytes < 0 ? NAN : (double)w->rss_bytes / 1048576.0);
        fprintf(out, "%5lld %8s %6lld %5lld %8s %7s %7s %7s %7s %7s %8s %8s %6.1f%s\n",
                (long long)w->idx, st, (long long)w->requests, (long long)w->errors, c[0], c[1],
                c[2], c[3], c[4], c[5], c[6], c[7], w->down_s, w->restarts ? "  restart" : "");
    }
    if (step > 1)
        fprintf(out, "(every %zu%s window of %zu shown; `export` has them all)\n", step,
                step == 2   ? "nd"
                : step == 3 ? "rd"
                            : "th",
                v->n_windows);
}

/* The figure of window w a sparkline shows. */
typedef double (*metric_fn)(const tc_soak_window *w);
static double m_tps(const tc_soak_window *w)
{
    return w->tok_s;
}
static double m_ttft(const tc_soak_window *w)
{
    return w->ttft_p50_ms;
}
static double m_tpot(const tc_soak_window *w)
{
    return w->tpot_p50_ms;
}
static double m_errors(const tc_soak_window *w)
{
    return (double)w->errors;
}
static double m_rss(const tc_soak_window *w)
{
    return w->rss_bytes < 0 ? NAN : (double)w->rss_bytes / 1048576.0;
}
static double m_gpu(const tc_soak_window *w)
{
    return w->gpu_mem_bytes < 0 ? NAN : (double)w->gpu_mem_bytes / 1048576.0;
}
static double m_power(const tc_soak_window *w)
{
    return w->avg_power_w;
}

/* One metric over the windows in at most 60 columns (each the mean of its
 * windows), eight levels from its least to its most; a blank where it was
 * not measured. */
static void sparkline(FILE *out, const tc_soak_view *v, const char *name, metric_fn f,
                      const char *unit)
{
    static const char *const bars[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                        "\u2585", "\u2586", "\u2587", "\u2588"};
    enum { COLS = 60 };
    size_t n = v->n_windows, cols = n < COLS ? n : COLS;
    double col[COLS], lo = INFINITY, hi = -INFINITY;
    for (size_t c = 0; c < cols; c++) {
        size_t a = c * n / cols, b = (c + 1) * n / cols;
        double sum = 0;
        int k = 0;
        for (size_t i = a; i < b; i++)
            if (isfinite(f(&v->windows[i]))) {
                sum += f(&v->windows[i]);
                k++;
            }
        col[c] = k ? sum / k : NAN;
        if (k && col[c] < lo)
            lo = col[c];
        if (k && col[c] > hi)
            hi = col[c];
    }
    if (!(hi >= lo))
        return; /* never measured */
    fprintf(out, "  %-12s ", name);
    for (size_t c = 0; c < cols; c++) {
        int level = !isfinite(col[c]) ? -1 : hi > lo ? (int)((col[c] - lo) / (hi - lo) * 7.999) : 0;
        fputs(level < 0 ? " " : bars[level], out);
    }
    fprintf(out, "  %.4g..%.4g %s\n", lo, hi, unit);
}

static void print_sparklines(FILE *out, const tc_soak_view *v)
{
    fputc('\n', out);
    sparkline(out, v, "tok/s", m_tps, "tokens/s");
    sparkline(out, v, "TTFT p50", m_ttft, "ms");
    sparkline(out, v, "TPOT p50", m_tpot, "ms");
    sparkline(out, v, "errors", m_errors, "per window");
    sparkline(out, v, "server RSS", m_rss, "MiB");
    sparkline(out, v, "GPU memory", m_gpu, "MiB");
    sparkline(out, v, "power", m_power, "W");
}

static void print_outages(FILE *out, const tc_soak_view *v)
{
    if (!v->n_outages) {
        fprintf(out, "\nno outages\n");
        return;
    }
    fprintf(out, "\noutages (first failed request to first success):\n");
    for (size_t i = 0; i < v->n_outages; i++) {
        const tc_soak_outage *o = &v->outages[i];
        char a[32], b[32];
        span_text(o->start_s, a, sizeof a);
        if (o->end_s >= 0)
            span_text(o->end_s, b, sizeof b);
        double d = (o->end_s >= 0 ? o->end_s : v->plan->covered_s) - o->start_s;
        fprintf(out, "  %2zu. at %s to %s: %.1f s, %lld failed%s; first: %s\n", i + 1, a,
                o->end_s >= 0 ? b : "the end (still down)", d, (long long)o->failed,
                o->refused ? ", connections refused" : "", o->first_error);
    }
}

tc_err tc_report_soak_text(FILE *out, const tc_soak_view *v)
{
    print_verdict(out, v);
    if (v->terminal && v->n_windows)
        print_sparklines(out, v);
    if (!v->terminal || v->n_windows <= 24)
        print_windows(out, v);
    print_outages(out, v);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

/* A number, or null when not measured. */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jbytes(int64_t v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *trend(double v, double lo, double hi)
{
    return json_pack("{s:o, s:o, s:o}", "value", jnum(v), "lo", jnum(lo), "hi", jnum(hi));
}

static json_t *verdict_json(const tc_soak_view *v)
{
    const tc_soak_verdict *d = v->verdict;
    json_t *reasons = json_array();
    for (int i = 0; i < d->n_reasons; i++)
        json_array_append_new(reasons, json_string(d->reasons[i]));
    json_t *trends =
        json_pack("{s:o, s:o, s:o, s:o}", "throughput_pct_per_h",
                  trend(d->tput_pct_h, d->tput_lo_pct_h, d->tput_hi_pct_h), "tpot_pct_per_h",
                  trend(d->tpot_pct_h, d->tpot_lo_pct_h, d->tpot_hi_pct_h), "rss_mib_per_h",
                  trend(d->rss_mib_h, d->rss.lo, d->rss.hi), "gpu_mem_mib_per_h",
                  trend(d->gpu_mib_h, d->gpu_mem.lo, d->gpu_mem.hi));
    return json_pack("{s:s, s:b, s:b, s:o, s:I, s:I, s:f, s:i, s:f, s:f, s:i, s:i, s:f, s:o}",
                     "outcome", tc_soak_outcome_name(d->outcome), "pass", d->pass, "complete",
                     d->complete, "reasons", reasons, "requests", (json_int_t)d->requests, "errors",
                     (json_int_t)d->errors, "error_rate", d->error_rate, "outages", d->outages,
                     "downtime_s", d->downtime_s, "longest_outage_s", d->longest_s, "restarts",
                     d->restarts, "error_bursts", d->error_bursts, "outages_per_day",
                     tc_soak_outages_per_day(d), "trends", trends);
}

static json_t *window_json(const tc_soak_window *w)
{
    return tc_json_alias(
        json_pack("{s:I, s:f, s:f, s:I, s:I, s:o, s:{s:o, s:o}, s:{s:o, s:o}, s:o, s:o, s:o, "
                  "s:o, s:i, s:f}",
                  "idx", (json_int_t)w->idx, "start_s", w->start_s, "span_s", w->span_s, "requests",
                  (json_int_t)w->requests, "errors", (json_int_t)w->errors, "output_tokens_per_s",
                  jnum(w->tok_s), "ttft_ms", "p50", jnum(w->ttft_p50_ms), "p99",
                  jnum(w->ttft_p99_ms), "tpot_ms", "p50", jnum(w->tpot_p50_ms), "p99",
                  jnum(w->tpot_p99_ms), "avg_power_w", jnum(w->avg_power_w), "energy_j",
                  jnum(w->energy_j), "gpu_mem_bytes", jbytes(w->gpu_mem_bytes), "rss_bytes",
                  jbytes(w->rss_bytes), "restarts", w->restarts, "down_s", w->down_s),
        "power_w", "avg_power_w");
}

json_t *tc_report_soak_json(const tc_soak_view *v)
{
    const tc_soak_plan *p = v->plan;
    json_t *windows = json_array(), *outages = json_array();
    for (size_t i = 0; i < v->n_windows; i++)
        json_array_append_new(windows, window_json(&v->windows[i]));
    for (size_t i = 0; i < v->n_outages; i++) {
        const tc_soak_outage *o = &v->outages[i];
        double end = o->end_s >= 0 ? o->end_s : p->covered_s;
        json_array_append_new(
            outages, json_pack("{s:f, s:o, s:f, s:I, s:b, s:s}", "start_s", o->start_s, "end_s",
                               o->end_s >= 0 ? json_real(o->end_s) : json_null(), "duration_s",
                               end - o->start_s, "failed", (json_int_t)o->failed, "refused",
                               o->refused, "first_error", o->first_error));
    }
    json_t *soak =
        json_pack("{s:I, s:s, s:b, s:f, s:f, s:f, s:{s:f, s:f, s:f}, s:s, s:i}", "run_id",
                  (json_int_t)v->run->id, "label", v->run->label, "simulated", v->run->simulated,
                  "duration_s", p->duration_s, "covered_s", p->covered_s, "window_s", p->window_s,
                  "thresholds", "max_downtime_s", p->max_downtime_s, "max_drift_pct_per_h",
                  p->max_drift_pct, "max_error_rate", p->max_error_rate, "chunks",
                  tc_chunks_name(p->chunks), "resumes", p->resumes);
    return json_pack("{s:o, s:o, s:o, s:o}", "soak", soak, "verdict", verdict_json(v), "windows",
                     windows, "outages", outages);
}
