/* Platform comparison: bootstrap sides, the cost ratio, groups and the
 * differences that make a comparison unclean. */
#include "analysis/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/env_diff.h"

void tc_group_stat_compute(const double *v, size_t n, tc_group_stat *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->mean = sum / (double)n;
    if (n < 2)
        return;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - out->mean) * (v[i] - out->mean);
    out->stddev = sqrt(ss / (double)(n - 1));
    out->cv = out->mean != 0 ? out->stddev / fabs(out->mean) : 0;
    out->noisy = out->cv > TC_GROUP_CV_LIMIT;
}

static tc_err side_alloc(size_t n, tc_compare_side *out)
{
    memset(out, 0, sizeof *out);
    out->num = malloc(n * sizeof *out->num);
    out->den = malloc(n * sizeof *out->den);
    if (!out->num || !out->den) {
        tc_compare_side_free(out);
        return TC_ERR_NOMEM;
    }
    return TC_OK;
}

tc_err tc_compare_side_requests(const tc_req_record *recs, size_t n, double measured_tps,
                                tc_compare_side *out)
{
    if (!out || (!recs && n) || !(measured_tps > 0))
        return TC_ERR_INVALID;
    tc_err e = side_alloc(n ? n : 1, out);
    if (e != TC_OK)
        return e;
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        const tc_req_record *r = &recs[i];
        int64_t e2e = tc_req_e2e_ns(r);
        if (r->warmup || r->error != TC_REQ_OK || r->output_tokens <= 0 || e2e <= 0)
            continue;
        out->num[out->n] = (double)r->output_tokens;
        out->den[out->n] = (double)e2e / 1e9;
        num += out->num[out->n];
        den += out->den[out->n];
        out->n++;
    }
    if (out->n == 0) {
        tc_compare_side_free(out);
        return TC_ERR_INVALID;
    }
    out->scale = measured_tps / (num / den);
    return TC_OK;
}

tc_err tc_compare_side_runs(const double *tps, size_t n, tc_compare_side *out)
{
    if (!out || !tps || n == 0)
        return TC_ERR_INVALID;
    for (size_t i = 0; i < n; i++)
        if (!(tps[i] > 0))
            return TC_ERR_INVALID;
    tc_err e = side_alloc(n, out);
    if (e != TC_OK)
        return e;
    for (size_t i = 0; i < n; i++) {
        out->num[i] = tps[i];
        out->den[i] = 1;
    }
    out->n = n;
    out->scale = 1;
    out->run_level = 1;
    return TC_OK;
}

void tc_compare_side_free(tc_compare_side *s)
{
    if (!s)
        return;
    free(s->num);
    free(s->den);
    memset(s, 0, sizeof *s);
}

tc_boot_sample tc_compare_side_sample(const tc_compare_side *s)
{
    return (tc_boot_sample){.num = s->num, .den = s->den, .n = s->n, .scale = s->scale};
}

double tc_compare_t975(double df)
{
    static const double t[31] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                 2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                 2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                 2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    static const double big_df[] = {30, 40, 60, 120, INFINITY};
    static const double big_t[] = {2.042, 2.021, 2.000, 1.980, 1.960};
    if (!(df >= 1))
        df = 1;
    if (df <= 30) {
        int k = (int)floor(df);
        if (k == 30 || df == k)
            return t[k];
        double w = (1 / df - 1.0 / k) / (1.0 / (k + 1) - 1.0 / k); /* linear in 1/df */
        return t[k] + w * (t[k + 1] - t[k]);
    }
    for (int i = 0; i < 4; i++)
        if (df <= big_df[i + 1]) {
            double w = (1 / df - 1 / big_df[i]) / (1 / big_df[i + 1] - 1 / big_df[i]);
            return big_t[i] + w * (big_t[i + 1] - big_t[i]);
        }
    return 1.960;
}

/* Mean and squared coefficient of variation over n, of the side's runs. */
static int run_moments(const tc_compare_side *s, double *mean, double *cv2_over_n)
{
    if (!s->run_level || s->n < 2)
        return -1;
    tc_group_stat g;
    tc_group_stat_compute(s->num, s->n, &g);
    if (!(g.mean > 0))
        return -1;
    *mean = g.mean;
    *cv2_over_n = g.cv * g.cv / (double)s->n;
    return 0;
}

int tc_compare_welch_log_ratio(const tc_compare_side *a, const tc_compare_side *b, double *lo,
                               double *hi)
{
    double ma, mb, va, vb;
    if (run_moments(a, &ma, &va) < 0 || run_moments(b, &mb, &vb) < 0)
        return -1;
    double r = mb / ma, se = sqrt(va + vb);
    if (se == 0) { /* identical runs on both sides: no spread to widen by */
        *lo = *hi = r;
        return 0;
    }
    double df =
        (va + vb) * (va + vb) / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
    double half = tc_compare_t975(df) * se;
    *lo = r * exp(-half);
    *hi = r * exp(half);
    return 0;
}

static double cost_at(const tc_cost_profile *p, tc_cost_measured m, double tps)
{
    tc_cost_result r;
    m.output_tokens_per_s = tps;
    if (tc_cost_compute(p, &m, &r) != TC_OK || !r.has_cost)
        return NAN;
    return r.cost_per_million_tokens;
}

double tc_compare_cost_ratio(double tps_a, double tps_b, void *ctx)
{
    const tc_compare_cost_ctx *c = ctx;
    double ca = cost_at(c->pa, c->ma, tps_a), cb = cost_at(c->pb, c->mb, tps_b);
    return ca > 0 && isfinite(cb) ? cb / ca : NAN;
}

double tc_compare_a_over_b(double stat_a, double stat_b, void *ctx)
{
    (void)ctx;
    return stat_b != 0 ? stat_a / stat_b : NAN;
}

/* ---- differences ---------------------------------------------------------- */

static int add_diff(json_t *arr, const char *field, json_t *a, json_t *b, const char *why,
                    int hardware)
{
    json_t *o = json_pack("{s:s,s:o,s:o,s:s,s:b}", "field", field, "a", a ? a : json_null(), "b",
                          b ? b : json_null(), "why", why, "hardware", hardware);
    return o ? json_array_append_new(arr, o) : -1;
}

/* "closed", or an open loop's "poisson at 50 requests/s" (gamma with its
 * burstiness). */
static json_t *load_json(const tc_run_info *r)
{
    char text[96];
    if (r->rate <= 0)
        return json_string("closed");
    if (r->arrival == TC_ARRIVAL_GAMMA)
        snprintf(text, sizeof text, "gamma (burstiness %g) at %g requests/s", r->burstiness,
                 r->rate);
    else
        snprintf(text, sizeof text, "%s at %g requests/s", tc_arrival_name(r->arrival), r->rate);
    return json_string(text);
}

static int settings_differences(const tc_run_info *a, const tc_run_info *b, json_t *arr)
{
    int rc = 0;
    if (a->arrival != b->arrival || a->rate != b->rate || a->burstiness != b->burstiness)
        rc |= add_diff(arr, "load", load_json(a), load_json(b),
                       "different load: an open loop's rate and arrival process set the queueing "
                       "its latency includes, and a closed loop's differs in kind",
                       0);
    if (a->concurrency != b->concurrency)
        rc |=
            add_diff(arr, "concurrency", json_integer(a->concurrency), json_integer(b->concurrency),
                     "different concurrency: throughput and latency both depend on it", 0);
    if (a->max_tokens != b->max_tokens)
        rc |= add_diff(arr, "max_tokens", json_integer(a->max_tokens), json_integer(b->max_tokens),
                       "different max tokens: longer outputs change throughput and E2E", 0);
    if (a->prompt_set[0] && b->prompt_set[0] && strcmp(a->prompt_set, b->prompt_set) != 0)
        rc |= add_diff(arr, "prompt_set", json_string(a->prompt_set), json_string(b->prompt_set),
                       "different prompts: prompt length changes prefill time and TTFT", 0);
    else if (!a->prompt_set[0] != !b->prompt_set[0])
        rc |= add_diff(arr, "prompt_set", json_string(a->prompt_set), json_string(b->prompt_set),
                       "the prompts of one run were not recorded (an older truecost): check "
                       "they were the same",
                       0);
    if (strcmp(a->model, b->model) != 0)
        rc |= add_diff(arr, "model", json_string(a->model), json_string(b->model),
                       "different model name: check it is the same weights and quantisation", 0);
    if (a->api != b->api)
        rc |=
            add_diff(arr, "api", json_string(tc_api_name(a->api)), json_string(tc_api_name(b->api)),
                     "different API: chat templates and streaming differ", 0);
    return rc;
}

/* Fingerprint fields that are the hardware being compared. */
static int is_hardware_field(const char *field)
{
    static const char *const suffixes[] = {".vendor", ".name", ".memory_bytes", ".count"};
    if (strcmp(field, "gpus") == 0)
        return 1;
    if (strncmp(field, "gpus.", 5) != 0)
        return 0;
    size_t n = strlen(field);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(field + n - k, suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

json_t *tc_compare_differences(const tc_run_info *a, const tc_run_info *b, json_t *fa, json_t *fb)
{
    json_t *arr = json_array();
    if (!arr || settings_differences(a, b, arr) != 0)
        goto fail;
    if (fa && fb) {
        json_t *env = NULL;
        if (tc_fingerprint_diff(fa, fb, &env) != TC_OK)
            goto fail;
        size_t i;
        json_t *d;
        json_array_foreach(env, i, d)
        {
            const char *field = json_string_value(json_object_get(d, "field"));
            json_object_set_new(d, "hardware", json_boolean(field && is_hardware_field(field)));
            json_array_append(arr, d);
        }
        json_decref(env);
    } else if (strcmp(a->server_version, b->server_version) != 0 &&
               add_diff(arr, "server_version", json_string(a->server_version),
                        json_string(b->server_version), "different inference server version",
                        0) != 0) {
        goto fail;
    }
    if (!fa != !fb) {
        if (add_diff(arr, "environment", NULL, NULL,
                     "the environment of one run was not recorded: drivers and server versions "
                     "cannot be checked",
                     0) != 0)
            goto fail;
    }
    return arr;
fail:
    json_decref(arr);
    return NULL;
}
