#include "report_energy.h"

#include <stdlib.h>
#include <string.h>

#include "report/report_json.h"
#include "report/report_table.h"

static const char *na(char *buf, size_t len, int valid, const char *fmt, double v)
{
    if (!valid)
        return "n/a";
    snprintf(buf, len, fmt, v);
    return buf;
}

/* A measured figure for people: 4 significant digits (report_table.h). */
static const char *sig(char *buf, size_t len, int valid, double v)
{
    return valid ? tc_report_sig(buf, len, v) : "n/a";
}

static void device_lines(FILE *out, const tc_run_energy_dev *d)
{
    const tc_energy_summary *l = &d->load;
    int ok = l->method != TC_ENERGY_NONE;
    char a[32], b[32], c[32], e[32], f[32], g[32], h[32], i[32], j[32];
    fprintf(out, "              %s, %s (%s): %s J (%s)\n", d->dev.info.energy_what,
            d->dev.info.name, d->dev.backend, sig(a, sizeof a, ok, l->energy_j),
            tc_energy_method_name(l->method));
    fprintf(out, "              power avg %s W, peak %s W, idle %s W; %s J/token, %s tokens/J\n",
            sig(b, sizeof b, l->has_power, l->avg_power_w),
            sig(c, sizeof c, l->has_power, l->peak_power_w),
            sig(e, sizeof e, d->has_idle, d->idle_power_w),
            sig(f, sizeof f, ok && d->joules_per_output_token > 0, d->joules_per_output_token),
            sig(g, sizeof g, ok && d->tokens_per_joule > 0, d->tokens_per_joule));
    fprintf(out, "              memory peak %s GiB, utilisation mean %s %%, temperature max %s C\n",
            sig(h, sizeof h, l->has_mem, (double)l->peak_mem_bytes / 1073741824.0),
            na(i, sizeof i, l->has_util, "%.0f", l->mean_util_pct),
            na(j, sizeof j, l->has_temp, "%.0f", l->max_temp_c));
}

void tc_report_energy_table(FILE *out, const tc_run_energy *e)
{
    if (e->n == 0) {
        fprintf(out, "%-14s%s\n", "energy", "not available (no GPU or CPU energy sensor sampled)");
        return;
    }
    fprintf(out, "%-14s%d device(s) sampled, over the %s window\n", "energy", e->n,
            e->steady ? "steady-state" : "measured");
    for (int d = 0; d < e->n; d++)
        device_lines(out, &e->dev[d]);
    char t[3][32];
    if (e->has_total && e->n > 1)
        fprintf(out, "              total of all %d devices %s J; %s J/token, %s tokens/J\n", e->n,
                tc_report_sig(t[0], sizeof t[0], e->total_j),
                tc_report_sig(t[1], sizeof t[1], e->joules_per_output_token),
                tc_report_sig(t[2], sizeof t[2], e->tokens_per_joule));
    else if (e->n > 1)
        fprintf(out, "              total n/a: only %d of %d devices measured energy\n",
                e->n_with_energy, e->n);
    for (int d = 0; d < e->n; d++) {
        const tc_energy_summary *l = &e->dev[d].load;
        if (l->counter_frozen)
            fprintf(out,
                    "              note: device %d's energy counter did not advance over the "
                    "window (frozen or unsupported): %s\n",
                    d,
                    l->method == TC_ENERGY_INTEGRATED
                        ? "its energy is integrated from power samples instead"
                        : "its energy is not available (no power samples either)");
        if (l->peak_below_avg)
            fprintf(out,
                    "              note: device %d's peak power sample (%.1f W) is below the "
                    "average its energy counter gives (%.1f W): the two disagree\n",
                    d, l->peak_power_w, l->avg_power_w);
    }
    for (int d = 0; d < e->n; d++)
        if (e->dev[d].load.method != TC_ENERGY_NONE && e->dev[d].load.coverage < 0.95)
            fprintf(out,
                    "              note: device %d's samples cover %.0f%% of the measured "
                    "window (slow sensor, short run, or lost mid-run)\n",
                    d, e->dev[d].load.coverage * 100);
}

static json_t *device_json(const tc_run_energy_dev *d)
{
    const tc_energy_summary *l = &d->load;
    int ok = l->method != TC_ENERGY_NONE;
    /* A device name is the driver's bytes, maybe not UTF-8, which "s"
     * refuses (the device would vanish from the list): cleaned, "o". */
    json_t *o = json_pack("{s:o, s:o, s:s, s:o, s:s}", "name", tc_json_string(d->dev.info.name),
                          "backend", tc_json_string(d->dev.backend), "kind",
                          d->dev.info.kind == TC_TELEM_CPU ? "cpu" : "gpu", "energy_what",
                          tc_json_string(d->dev.info.energy_what), "method",
                          tc_energy_method_name(l->method));
    if (!o)
        return NULL;
    json_object_set_new(o, "energy_j", tc_json_num(ok, l->energy_j));
    json_object_set_new(o, "seconds", tc_json_num(ok, l->seconds));
    json_object_set_new(o, "coverage", tc_json_num(ok, l->coverage));
    json_object_set_new(o, "avg_power_w", tc_json_num(l->has_power, l->avg_power_w));
    json_object_set_new(o, "peak_power_w", tc_json_num(l->has_power, l->peak_power_w));
    json_object_set_new(o, "idle_power_w", tc_json_num(d->has_idle, d->idle_power_w));
    json_object_set_new(
        o, "joules_per_output_token",
        tc_json_num(ok && d->joules_per_output_token > 0, d->joules_per_output_token));
    tc_json_alias(o, "j_per_token", "joules_per_output_token");
    json_object_set_new(o, "tokens_per_j",
                        tc_json_num(ok && d->tokens_per_joule > 0, d->tokens_per_joule));
    json_object_set_new(o, "peak_mem_bytes",
                        l->has_mem ? json_integer(l->peak_mem_bytes) : json_null());
    json_object_set_new(o, "mean_util_pct", tc_json_num(l->has_util, l->mean_util_pct));
    json_object_set_new(o, "max_temp_c", tc_json_num(l->has_temp, l->max_temp_c));
    json_object_set_new(o, "samples", json_integer((json_int_t)l->samples));
    json_object_set_new(o, "counter_frozen", json_boolean(l->counter_frozen));
    json_object_set_new(o, "peak_below_avg", json_boolean(l->peak_below_avg));
    return o;
}

json_t *tc_report_energy_json(const tc_run_energy *e)
{
    if (e->n == 0)
        return json_null();
    json_t *devs = json_array();
    for (int d = 0; devs && d < e->n; d++)
        json_array_append_new(devs, device_json(&e->dev[d]));
    json_t *total = json_pack(
        "{s:i, s:i, s:o, s:o, s:o}", "devices", e->n, "devices_with_energy", e->n_with_energy,
        "energy_j", tc_json_num(e->has_total, e->total_j), "joules_per_output_token",
        tc_json_num(e->has_total && e->joules_per_output_token > 0, e->joules_per_output_token),
        "tokens_per_j", tc_json_num(e->has_total && e->tokens_per_joule > 0, e->tokens_per_joule));
    tc_json_alias(total, "j_per_token", "joules_per_output_token");
    return json_pack("{s:s, s:o, s:o}", "window", e->steady ? "steady" : "measured", "devices",
                     devs, "total", total);
}

/* ---- export -------------------------------------------------------------- */

typedef struct col {
    const char *name;
    uint32_t bit;
} col;

static const col cols[] = {
    {"power_w", TC_TF_POWER},
    {"energy_j", TC_TF_ENERGY},
    {"util_pct", TC_TF_UTIL_GPU},
    {"mem_util_pct", TC_TF_UTIL_MEM},
    {"mem_used_bytes", TC_TF_MEM_USED},
    {"mem_total_bytes", TC_TF_MEM_TOTAL},
    {"temp_c", TC_TF_TEMP},
    {"temp_hot_c", TC_TF_TEMP_HOT},
    {"clock_sm_mhz", TC_TF_CLOCK_SM},
    {"clock_mem_mhz", TC_TF_CLOCK_MEM},
    {"power_limit_w", TC_TF_POWER_LIMIT},
};
#define N_COLS (sizeof cols / sizeof cols[0])

static double value(const tc_telem_sample *x, size_t c)
{
    switch (c) {
    case 0:
        return (double)x->power_mw / 1000.0;
    case 1:
        return (double)x->energy_uj / 1e6;
    case 2:
        return x->util_pct;
    case 3:
        return x->mem_util_pct;
    case 4:
        return (double)x->mem_used_bytes;
    case 5:
        return (double)x->mem_total_bytes;
    case 6:
        return x->temp_mc / 1000.0;
    case 7:
        return x->temp_hot_mc / 1000.0;
    case 8:
        return x->clock_sm_mhz;
    case 9:
        return x->clock_mem_mhz;
    default:
        return (double)x->power_limit_mw / 1000.0;
    }
}

static void csv_row(FILE *out, const tc_run_device *devs, int n_devs, const tc_run_sample *r,
                    int64_t t0, int simulated)
{
    const char *name = r->device < n_devs ? devs[r->device].info.name : "?";
    fprintf(out, "%d,", r->device);
    fputc('"', out);
    for (const char *p = name; *p; p++) { /* RFC 4180: quotes doubled */
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fprintf(out, "\",%.6f", (double)(r->s.mono_ns - t0) / 1e9);
    for (size_t c = 0; c < N_COLS; c++) {
        if (r->s.valid & cols[c].bit)
            fprintf(out, ",%.15g", value(&r->s, c));
        else
            fputc(',', out);
    }
    fprintf(out, ",%s\n", simulated ? "true" : "false");
}

static json_t *json_row(const tc_run_device *devs, int n_devs, const tc_run_sample *r, int64_t t0,
                        int simulated)
{
    json_t *o = json_pack("{s:i, s:o, s:f}", "device", r->device, "name",
                          tc_json_string(r->device < n_devs ? devs[r->device].info.name : "?"),
                          "t_s", (double)(r->s.mono_ns - t0) / 1e9);
    for (size_t c = 0; o && c < N_COLS; c++)
        json_object_set_new(o, cols[c].name,
                            tc_json_num((r->s.valid & cols[c].bit) != 0, value(&r->s, c)));
    if (o)
        json_object_set_new(o, "simulated", json_boolean(simulated));
    return o;
}

tc_err tc_report_export_samples(FILE *out, int json, int simulated, const tc_run_device *devs,
                                int n_devs, const tc_run_sample *samples, size_t n, char *err,
                                size_t errlen)
{
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (samples[i].s.mono_ns < t0)
            t0 = samples[i].s.mono_ns;
    if (!json) {
        fputs("device,name,t_s", out);
        for (size_t c = 0; c < N_COLS; c++)
            fprintf(out, ",%s", cols[c].name);
        fputs(",simulated\n", out); /* last, as in the other exports */
        for (size_t i = 0; i < n; i++)
            csv_row(out, devs, n_devs, &samples[i], t0, simulated);
    } else {
        json_t *arr = json_array();
        for (size_t i = 0; arr && i < n; i++)
            json_array_append_new(arr, json_row(devs, n_devs, &samples[i], t0, simulated));
        char *text = arr ? json_dumps(arr, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) : NULL;
        json_decref(arr);
        if (!text)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
        fputs(text, out);
        fputc('\n', out);
        free(text);
    }
    return ferror(out) ? tc_fail(err, errlen, TC_ERR_IO, "write failed") : TC_OK;
}
