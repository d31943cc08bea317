#include "report_sweep.h"

#include <string.h>

#include "core/tc_json.h"
#include "report_json.h"
#include "report_table.h"

static int simulated_of(const tc_sweep_view *v)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->points[i].simulated)
            return 1;
    return 0;
}

static json_t *pair(int valid, double p50, double p99)
{
    return json_pack("{s:o, s:o}", "p50", tc_json_num(valid, p50), "p99", tc_json_num(valid, p99));
}

static json_t *point_json(const tc_sweep_point *p)
{
    json_t *good = p->has_goodput
                       ? json_pack("{s:f, s:f, s:f}", "requests_per_s", p->good_requests_per_s,
                                   "output_tokens_per_s", p->good_output_tokens_per_s, "attainment",
                                   p->attainment)
                       : json_null();
    json_t *energy = tc_json_alias(
        json_pack("{s:o, s:o}", "avg_power_w", tc_json_num(p->has_avg_power, p->avg_power_w),
                  "joules_per_output_token", tc_json_num(p->has_jpt, p->joules_per_output_token)),
        "watts", "avg_power_w");
    json_t *o = json_object();
    json_object_set_new(o, "run_id", json_integer(p->run_id));
    json_object_set_new(o, "status", json_string(tc_status_name(p->status)));
    json_object_set_new(o, "concurrency",
                        p->open_loop ? json_null() : json_integer(p->concurrency));
    json_object_set_new(o, "rate", p->open_loop ? json_real(p->rate) : json_null());
    json_object_set_new(o, "arrivals_per_s",
                        tc_json_num(p->open_loop && p->arrivals_per_s > 0, p->arrivals_per_s));
    tc_json_alias(o, "arrival_rate", "arrivals_per_s");
    json_object_set_new(o, "requests_per_s", tc_json_num(p->has_rates, p->requests_per_s));
    json_object_set_new(o, "output_tokens_per_s",
                        tc_json_num(p->output_tokens_per_s > 0, p->output_tokens_per_s));
    json_object_set_new(o, "total_tokens_per_s", tc_json_num(p->has_total, p->total_tokens_per_s));
    json_object_set_new(o, "tokens_per_s_per_gpu",
                        tc_json_num(p->output_tokens_per_s > 0, p->tokens_per_s_per_gpu));
    json_object_set_new(o, "gpus", json_integer(p->gpus));
    json_object_set_new(o, "interactivity", tc_json_num(p->has_interactivity, p->interactivity));
    json_object_set_new(o, "steady_state", json_boolean(p->steady));
    json_object_set_new(o, "ttft_ms", pair(p->has_ttft, p->ttft_p50, p->ttft_p99));
    json_object_set_new(o, "tpot_ms", pair(p->has_tpot, p->tpot_p50, p->tpot_p99));
    json_object_set_new(o, "goodput", good);
    json_object_set_new(o, "energy", energy);
    json_object_set_new(o, "error_rate", json_real(p->error_rate));
    json_object_set_new(o, "retried_stale_connection", json_integer(p->retried));
    return o;
}

static json_t *knee_json(const tc_sweep_view *v)
{
    const char *why = NULL;
    int k = tc_sweep_knee(v->points, v->n, &why);
    if (k < 0)
        return json_null();
    const tc_sweep_point *p = &v->points[k];
    return json_pack("{s:i, s:I, s:o, s:o, s:s}", "index", k, "run_id", (json_int_t)p->run_id,
                     "concurrency", p->open_loop ? json_null() : json_integer(p->concurrency),
                     "rate", p->open_loop ? json_real(p->rate) : json_null(), "reason", why);
}

json_t *tc_report_sweep_json(const tc_sweep_view *v)
{
    int sim = simulated_of(v);
    json_t *sweep = json_object(), *points = json_array();
    json_object_set_new(sweep, "name", tc_json_string(v->name));
    json_object_set_new(sweep, "simulated", json_boolean(sim));
    if (sim)
        json_object_set_new(sweep, "note", json_string(TC_REPORT_SIM_NOTE));
    json_object_set_new(sweep, "offered",
                        json_string(v->n && v->points[0].open_loop ? "rate" : "concurrency"));
    json_object_set_new(sweep, "slo", tc_json_str_or_null(v->slo));
    json_object_set_new(sweep, "stopped", tc_json_str_or_null(v->stopped));
    char cut[96];
    json_object_set_new(
        sweep, "incomplete",
        tc_json_str_or_null(tc_sweep_incomplete_text(v->points, v->n, cut, sizeof cut)));
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(points, point_json(&v->points[i]));
    json_t *doc = json_object();
    json_object_set_new(doc, "sweep", sweep);
    json_object_set_new(doc, "points", points);
    json_object_set_new(doc, "knee", knee_json(v));
    return doc;
}

static const char *offered(const tc_sweep_point *p, char *buf, size_t len)
{
    return tc_sweep_offered_text(p, buf, len);
}

/* Why a point's figures are not the whole story, after its row. */
static const char *row_note(const tc_sweep_point *p)
{
    if (!p->complete)
        return p->status == TC_RUN_RUNNING ? "  (unfinished: partial, left out)"
                                           : "  (interrupted: partial, left out)";
    return p->steady ? "" : "  (no steady state: whole run)";
}

static void row(FILE *out, const tc_sweep_point *p, int knee)
{
    char o[24], a[16], b[16], c[16], d[16], e[16], f[16], g[16], h[16], i[16], j[16];
    fprintf(out, "%s %-9s %9s %9s %9s %7s %8s %8s %7s %7s %8s %7s%s\n", knee ? "*" : " ",
            offered(p, o, sizeof o), tc_report_fmt(a, sizeof a, p->has_rates, p->requests_per_s),
            tc_report_fmt(b, sizeof b, p->output_tokens_per_s > 0, p->output_tokens_per_s),
            tc_report_fmt(c, sizeof c, p->output_tokens_per_s > 0, p->tokens_per_s_per_gpu),
            tc_report_fmt(d, sizeof d, p->has_interactivity, p->interactivity),
            tc_report_fmt(e, sizeof e, p->has_ttft, p->ttft_p50),
            tc_report_fmt(f, sizeof f, p->has_ttft, p->ttft_p99),
            tc_report_fmt(g, sizeof g, p->has_tpot, p->tpot_p50),
            tc_report_fmt(h, sizeof h, p->has_tpot, p->tpot_p99),
            tc_report_fmt(i, sizeof i, p->has_goodput, p->good_requests_per_s),
            tc_report_fmt(j, sizeof j, p->has_jpt, p->joules_per_output_token), row_note(p));
}

tc_err tc_report_sweep_text(FILE *out, const tc_sweep_view *v)
{
    const char *why = NULL;
    int knee = tc_sweep_knee(v->points, v->n, &why);
    fprintf(out, "%sSweep '%s': %zu points%s%s\n", simulated_of(v) ? "SIMULATED " : "", v->name,
            v->n, v->slo ? ", SLO " : "", v->slo ? v->slo : "");
    fprintf(out, "  %-9s %9s %9s %9s %7s %8s %8s %7s %7s %8s %7s\n", "offered", "win req/s",
            "win tok/s", "tok/s/GPU", "tok/s/u", "TTFT p50", "TTFT p99", "TPOT50", "TPOT99",
            "good r/s", "J/tok");
    for (size_t i = 0; i < v->n; i++)
        row(out, &v->points[i], (int)i == knee);
    fprintf(out, "(win: over the steady-state window, each request counted by its share of "
                 "tokens in it, so win req/s x mean output tokens = win tok/s; good r/s the "
                 "same; tok/s/u = interactivity, 1000 / TPOT p50; ms)\n");
    if (knee >= 0) {
        char o[24];
        fprintf(out, "Knee (*): %s, run %lld: %s\n", offered(&v->points[knee], o, sizeof o),
                (long long)v->points[knee].run_id, why);
    } else {
        fprintf(out, "Knee: not found (goodput never fell and latency p99 never doubled)\n");
    }
    if (v->stopped)
        fprintf(out, "Stopped going up: %s\n", v->stopped);
    char cut[96];
    if (tc_sweep_incomplete_text(v->points, v->n, cut, sizeof cut))
        fprintf(out,
                "Incomplete: %s did not finish; its figures are partial, and the knee, frontier, "
                "compare and report leave it out\n",
                cut);
    tc_report_method_pointer(out, "The steady-state window");
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

void tc_report_sweep_progress(FILE *out, size_t index, const tc_sweep_point *p)
{
    char o[24], a[16], b[16], c[16];
    fprintf(out,
            "truecost: point %zu (%s, run %lld): %s output tok/s, %s tok/s per user, "
            "%.1f%% errors%s%s",
            index + 1, offered(p, o, sizeof o), (long long)p->run_id,
            tc_report_fmt(a, sizeof a, p->output_tokens_per_s > 0, p->output_tokens_per_s),
            tc_report_fmt(b, sizeof b, p->has_interactivity, p->interactivity), p->error_rate * 100,
            p->has_goodput ? ", goodput " : "",
            p->has_goodput ? tc_report_fmt(c, sizeof c, 1, p->good_requests_per_s) : "");
    if (p->retried)
        fprintf(out, ", %lld retried on a fresh connection", (long long)p->retried);
    fputc('\n', out);
}
