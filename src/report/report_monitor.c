#include "report_monitor.h"

#include <stdlib.h>

#include "core/tc_json.h"
#include "core/tc_time.h"

void tc_report_monitor_header(FILE *out, int redraw_rows)
{
    if (redraw_rows > 0)
        fprintf(out, "\033[%dA", redraw_rows);
    fprintf(out, "%-2s %-26s %-10s %10s %10s %6s %6s %13s %7s %7s\n", "#", "DEVICE", "SOURCE",
            "POWER W", "ENERGY J", "UTIL%", "MEM%", "MEM GiB", "TEMP C", "SM MHz");
}

static const char *cell(char *buf, size_t len, int valid, const char *fmt, double v)
{
    if (!valid)
        return "n/a";
    snprintf(buf, len, fmt, v);
    return buf;
}

void tc_report_monitor_row(FILE *out, const tc_monitor_reading *r)
{
    char p[32], e[32], u[16], m[16], mu[40], t[16], c[16], pw[40];
    const tc_telem_sample *x = r->x;
    uint32_t v = x->valid;
    snprintf(pw, sizeof pw, "%s%s",
             cell(p, sizeof p, v & TC_TF_POWER, "%.1f", x->power_mw / 1000.0),
             (v & TC_TF_POWER) && !x->power_instant ? " avg" : "");
    if ((v & TC_TF_MEM_USED) && (v & TC_TF_MEM_TOTAL))
        snprintf(mu, sizeof mu, "%.1f/%.1f", x->mem_used_bytes / 1073741824.0,
                 x->mem_total_bytes / 1073741824.0);
    else
        snprintf(mu, sizeof mu, "n/a");
    fprintf(out, "%-2d %-26.26s %-10s %10s %10s %6s %6s %13s %7s %7s\n", r->device,
            tc_telem_set_device(r->set, r->device)->name, tc_telem_set_backend(r->set, r->device),
            pw, cell(e, sizeof e, r->energy_ok, "%.1f", r->energy_j),
            cell(u, sizeof u, v & TC_TF_UTIL_GPU, "%.0f", x->util_pct),
            cell(m, sizeof m, v & TC_TF_UTIL_MEM, "%.0f", x->mem_util_pct), mu,
            cell(t, sizeof t, v & TC_TF_TEMP, "%.0f", x->temp_mc / 1000.0),
            cell(c, sizeof c, v & TC_TF_CLOCK_SM, "%.0f", x->clock_sm_mhz));
}

/* The reading's fields, each null when its sensor did not give it. */
static void put_fields(json_t *o, const tc_monitor_reading *r)
{
    const tc_telem_sample *x = r->x;
    uint32_t v = x->valid;
    json_object_set_new(o, "power_w", tc_json_num(v & TC_TF_POWER, x->power_mw / 1000.0));
    json_object_set_new(o, "power_instant",
                        (v & TC_TF_POWER) ? json_boolean(x->power_instant) : json_null());
    json_object_set_new(o, "energy_j", tc_json_num(r->energy_ok, r->energy_j));
    json_object_set_new(o, "util_pct", tc_json_num(v & TC_TF_UTIL_GPU, x->util_pct));
    json_object_set_new(o, "mem_util_pct", tc_json_num(v & TC_TF_UTIL_MEM, x->mem_util_pct));
    json_object_set_new(o, "mem_used_bytes",
                        (v & TC_TF_MEM_USED) ? json_integer(x->mem_used_bytes) : json_null());
    json_object_set_new(o, "mem_total_bytes",
                        (v & TC_TF_MEM_TOTAL) ? json_integer(x->mem_total_bytes) : json_null());
    json_object_set_new(o, "temp_c", tc_json_num(v & TC_TF_TEMP, x->temp_mc / 1000.0));
    json_object_set_new(o, "temp_hot_c", tc_json_num(v & TC_TF_TEMP_HOT, x->temp_hot_mc / 1000.0));
    json_object_set_new(o, "clock_sm_mhz", tc_json_num(v & TC_TF_CLOCK_SM, x->clock_sm_mhz));
    json_object_set_new(o, "clock_mem_mhz", tc_json_num(v & TC_TF_CLOCK_MEM, x->clock_mem_mhz));
    json_object_set_new(o, "power_limit_w",
                        tc_json_num(v & TC_TF_POWER_LIMIT, x->power_limit_mw / 1000.0));
}

tc_err tc_report_monitor_json(FILE *out, const tc_monitor_reading *r, int64_t wall_ns)
{
    char when[40];
    const tc_telem_device *d = tc_telem_set_device(r->set, r->device);
    /* device names come from drivers and vendor tools: not always UTF-8 */
    json_t *o =
        json_pack("{s:s, s:i, s:o, s:o, s:o}", "time", tc_rfc3339_ns(wall_ns, when, sizeof when),
                  "device", r->device, "name", tc_json_string(d->name), "backend",
                  tc_json_string(tc_telem_set_backend(r->set, r->device)), "energy_what",
                  tc_json_string(d->energy_what));
    if (!o)
        return TC_ERR_NOMEM;
    put_fields(o, r);
    const char *e = tc_telem_set_error(r->set, r->device);
    json_object_set_new(o, "error", *e ? tc_json_string(e) : json_null());
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(o);
    if (!text)
        return TC_ERR_NOMEM;
    fprintf(out, "%s\n", text);
    free(text);
    return TC_OK;
}
