/* A soak's trends and verdict. */
#include "soak.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

tc_soak_fit tc_soak_fit_line(const double *x, const double *y, size_t n)
{
    tc_soak_fit f = {0};
    double sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i]) && isfinite(x[i])) {
            sx += x[i];
            sy += y[i];
            f.n++;
        }
    f.slope = f.lo = f.hi = f.intercept = NAN;
    if (f.n < 3)
        return f;
    double mx = sx / f.n, my = sy / f.n, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i]) && isfinite(x[i])) {
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
        }
    if (!(sxx > 0))
        return f;
    f.ok = 1;
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    double ssr = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i]) && isfinite(x[i])) {
            double r = y[i] - (f.intercept + f.slope * x[i]);
            ssr += r * r;
        }
    double se = sqrt(ssr / (f.n - 2) / sxx);
    double t = tc_compare_t975(f.n - 2);
    f.lo = f.slope - t * se;
    f.hi = f.slope + t * se;
    return f;
}

__attribute__((format(printf, 2, 3))) static void reason(tc_soak_verdict *v, const char *fmt, ...)
{
    if (v->n_reasons >= TC_SOAK_MAX_REASONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reasons[v->n_reasons++], sizeof v->reasons[0], fmt, ap);
    va_end(ap);
}

/* Whether soak time t lies inside an outage. */
static int in_outage(const tc_soak_outage *o, size_t n, double a, double b)
{
    for (size_t i = 0; i < n; i++) {
        double end = o[i].end_s < 0 ? INFINITY : o[i].end_s;
        if (a < end && b > o[i].start_s)
            return 1;
    }
    return 0;
}

static void count_outages(const tc_soak_outage *o, size_t n, double covered, tc_soak_verdict *v)
{
    for (size_t i = 0; i < n; i++) {
        double end = o[i].end_s < 0 ? covered : o[i].end_s;
        double d = end > o[i].start_s ? end - o[i].start_s : 0;
        v->outages++;
        v->open_outage |= o[i].end_s < 0;
        v->downtime_s += d;
        if (d > v->longest_s)
            v->longest_s = d;
    }
}

/* Requests and errors, overall and in the windows no outage touched;
 * error bursts: such windows with at least 3 errors at 5 times the rate
 * of the rest (or above the limit when the rest had none). */
static void count_errors(const tc_soak_plan *p, const tc_soak_window *w, size_t n,
                         const tc_soak_outage *o, size_t no, tc_soak_verdict *v)
{
    for (size_t i = 0; i < n; i++) {
        v->requests += w[i].requests;
        v->errors += w[i].errors;
        v->restarts += w[i].restarts;
        if (in_outage(o, no, w[i].start_s, w[i].start_s + w[i].span_s) || w[i].down_s > 0)
            continue;
        v->requests_up += w[i].requests;
        v->errors_up += w[i].errors;
    }
    v->error_rate = v->requests_up ? (double)v->errors_up / (double)v->requests_up : 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i].errors < 3 || !w[i].requests ||
            in_outage(o, no, w[i].start_s, w[i].start_s + w[i].span_s) || w[i].down_s > 0)
            continue;
        double rate = (double)w[i].errors / (double)w[i].requests;
        double others =
            v->requests_up > w[i].requests
                ? (double)(v->errors_up - w[i].errors) / (double)(v->requests_up - w[i].requests)
                : 0;
        if (rate > 5 * others && rate > p->max_error_rate)
            v->error_bursts++;
    }
}

/* The trends, x in hours at each window's middle. Windows an outage
 * touched are left out of the speed trends (their throughput says the
 * outage, not drift), and so are windows shorter than the plan's (the
 * last one, ending with the load's tail). */
static void trends(const tc_soak_window *w, size_t n, double window_s, const tc_soak_outage *o,
                   size_t no, tc_soak_verdict *v)
{
    double x[n ? n : 1], tput[n ? n : 1], tpot[n ? n : 1], rss[n ? n : 1], gpu[n ? n : 1];
    for (size_t i = 0; i < n; i++) {
        int hit = in_outage(o, no, w[i].start_s, w[i].start_s + w[i].span_s) || w[i].down_s > 0 ||
                  w[i].span_s < 0.999 * window_s;
        x[i] = (w[i].start_s + w[i].span_s / 2) / 3600.0;
        tput[i] = hit || !w[i].requests ? NAN : w[i].tok_s;
        tpot[i] = hit ? NAN : w[i].tpot_p50_ms;
        /* The first window is memory's warm-up; a restart's window
         * starts a new process. */
        rss[i] = i == 0 || w[i].rss_bytes < 0 ? NAN : (double)w[i].rss_bytes / 1048576.0;
        gpu[i] = i == 0 || w[i].gpu_mem_bytes < 0 ? NAN : (double)w[i].gpu_mem_bytes / 1048576.0;
    }
    v->tput = tc_soak_fit_line(x, tput, n);
    v->tpot = tc_soak_fit_line(x, tpot, n);
    v->rss = tc_soak_fit_line(x, rss, n);
    v->gpu_mem = tc_soak_fit_line(x, gpu, n);
}

static double pct(double slope, double base)
{
    return base > 0 && isfinite(slope) ? 100.0 * slope / base : NAN;
}

/* Memory grows beyond the threshold: the whole 95% interval above
 * max_drift % of the fitted start per hour (and above 1 MiB per hour),
 * and by at least LEAK_MIN_MIB over the soak, so that a short soak does
 * not take an allocator's warm-up for a leak. */
#define LEAK_MIN_MIB 16.0
static int grows(const tc_soak_fit *f, double max_drift_pct, double covered_s)
{
    if (!f->ok || !(f->intercept > 0))
        return 0;
    double limit = f->intercept * max_drift_pct / 100.0;
    return f->lo > (limit > 1.0 ? limit : 1.0) && f->slope * covered_s / 3600.0 >= LEAK_MIN_MIB;
}

static void judge_trends(const tc_soak_plan *p, tc_soak_verdict *v)
{
    double base = v->tput.intercept, lim = p->max_drift_pct;
    v->tput_pct_h = pct(v->tput.slope, base);
    v->tput_lo_pct_h = pct(v->tput.lo, base);
    v->tput_hi_pct_h = pct(v->tput.hi, base);
    base = v->tpot.intercept;
    v->tpot_pct_h = pct(v->tpot.slope, base);
    v->tpot_lo_pct_h = pct(v->tpot.lo, base);
    v->tpot_hi_pct_h = pct(v->tpot.hi, base);
    v->rss_mib_h = v->rss.ok ? v->rss.slope : NAN;
    v->gpu_mib_h = v->gpu_mem.ok ? v->gpu_mem.slope : NAN;
    /* A drift counts when the whole interval is past the threshold: noise
     * in a short soak must not fail a steady server. */
    if (isfinite(v->tput_hi_pct_h) && v->tput_hi_pct_h < -lim)
        reason(v,
               "throughput drifts %.1f%% per hour (95%% interval up to %.1f%%; the limit is "
               "-%g%% per hour, --max-drift)",
               v->tput_pct_h, v->tput_hi_pct_h, lim);
    if (isfinite(v->tpot_lo_pct_h) && v->tpot_lo_pct_h > lim)
        reason(v,
               "TPOT grows %.1f%% per hour (95%% interval from %.1f%%; the limit is "
               "%g%% per hour, --max-drift)",
               v->tpot_pct_h, v->tpot_lo_pct_h, lim);
    v->rss_leak = grows(&v->rss, lim, p->covered_s);
    v->gpu_leak = grows(&v->gpu_mem, lim, p->covered_s);
    if (v->rss_leak)
        reason(v, "the server's memory (RSS) grows %.1f MiB per hour (95%% interval from %.1f)",
               v->rss.slope, v->rss.lo);
    if (v->gpu_leak)
        reason(v, "GPU memory grows %.1f MiB per hour (95%% interval from %.1f)", v->gpu_mem.slope,
               v->gpu_mem.lo);
}

void tc_soak_judge(const tc_soak_plan *plan, const tc_soak_window *w, size_t n_windows,
                   const tc_soak_outage *o, size_t n_outages, tc_soak_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->covered_s = plan->covered_s;
    count_outages(o, n_outages, plan->covered_s, v);
    count_errors(plan, w, n_windows, o, n_outages, v);
    if (plan->restarts > v->restarts)
        v->restarts = plan->restarts;
    if (v->downtime_s > plan->max_downtime_s)
        reason(v, "downtime %.1f s exceeds %.1f s (--max-downtime)", v->downtime_s,
               plan->max_downtime_s);
    if (v->open_outage)
        reason(v, "the server was still down when the soak ended (%d outage(s), %.1f s down)",
               v->outages, v->downtime_s);
    if (v->error_rate > plan->max_error_rate)
        reason(v, "error rate %.4f outside outages exceeds %.4f (--max-error-rate)", v->error_rate,
               plan->max_error_rate);
    v->complete = tc_soak_plan_complete(plan);
    if (v->requests == 0 && v->complete)
        reason(v, "no request finished in %.0f s of soak", plan->covered_s);
    trends(w, n_windows, plan->window_s, o, n_outages, v);
    judge_trends(plan, v);
    v->outcome = v->n_reasons ? TC_SOAK_FAIL : v->complete ? TC_SOAK_PASS : TC_SOAK_INCOMPLETE;
    v->pass = v->outcome == TC_SOAK_PASS;
}

const char *tc_soak_outcome_name(tc_soak_outcome o)
{
    return o == TC_SOAK_PASS ? "PASS" : o == TC_SOAK_FAIL ? "FAIL" : "INCOMPLETE";
}

int tc_soak_plan_complete(const tc_soak_plan *plan)
{
    double slack = plan->duration_s * 0.01 < 1 ? plan->duration_s * 0.01 : 1;
    return plan->covered_s >= plan->duration_s - slack;
}

double tc_soak_outages_per_day(const tc_soak_verdict *v)
{
    return v->covered_s > 0 ? v->outages * 86400.0 / v->covered_s : 0;
}

void tc_soak_stored_free(tc_soak_stored *s)
{
    free(s->windows);
    free(s->outages);
    memset(s, 0, sizeof *s);
}
