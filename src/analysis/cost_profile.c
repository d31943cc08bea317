#include "cost_profile.h"

#include "core/tc_file.h"
#include "core/tc_ini.h"
#include "core/tc_number.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One known key: where it goes, what it accepts and how to say so. */
typedef struct key_spec {
    const char *section, *key;
    size_t offset; /* of its tc_cost_field in tc_cost_profile */
    double min, max;
    int min_open; /* 1: the value must be above min, not equal to it */
    const char *expect;
} key_spec;

#define F(member) offsetof(tc_cost_profile, member)
#define BIG 1e15

static const key_spec keys[] = {
    {"hardware", "price", F(hw_price), 0, BIG, 0,
     "currency units, the whole server share, e.g. 2400"},
    {"hardware", "amortize_months", F(amortize_months), 0, 1200, 1, "months > 0, e.g. 36"},
    {"hardware", "residual_fraction", F(residual_fraction), 0, 1, 0,
     "a fraction 0..1 of the price left at the end, e.g. 0.2"},
    {"cloud", "price_per_hour", F(cloud_price_per_hour), 0, BIG, 0,
     "currency units per device-hour, e.g. 2.49"},
    {"power", "price_per_kwh", F(price_per_kwh), 0, BIG, 0, "currency units per kWh, e.g. 0.30"},
    {"power", "pue", F(pue), 1, 10, 0, "a ratio >= 1, e.g. 1.4"},
    {"power", "idle_watts", F(idle_watts), 0, 1e6, 0, "watts, e.g. 60"},
    {"power", "busy_watts", F(busy_watts), 0, 1e6, 0, "watts, e.g. 380"},
    {"operations", "hours_per_month", F(ops_hours_per_month), 0, 1e6, 0,
     "person-hours per month, e.g. 4"},
    {"operations", "hourly_rate", F(hourly_rate), 0, BIG, 0,
     "currency units per person-hour, e.g. 80"},
    {"operations", "adaptation_days", F(adaptation_days), 0, 1e6, 0,
     "one-time person-days, e.g. 10"},
    {"operations", "day_rate", F(day_rate), 0, BIG, 0, "currency units per person-day, e.g. 640"},
    {"workload", "utilization", F(utilization), 0, 1, 1,
     "the busy fraction of the month, 0 < u <= 1, e.g. 0.5"},
    {"workload", "tokens_per_month", F(tokens_per_month), 0, BIG, 1,
     "output tokens per month > 0, e.g. 2e9"},
};
#define N_KEYS ((int)(sizeof keys / sizeof keys[0]))

static const char *const sections[] = {"hardware", "cloud", "power", "operations", "workload"};
#define N_SECTIONS ((int)(sizeof sections / sizeof sections[0]))

/* Parser state shared by the reader (which counts lines, since the system
 * inih is built without INI_HANDLER_LINENO) and the handler. */
typedef struct parse_ctx {
    tc_ini ini; /* the text, the line, the first error */
    tc_cost_profile *p;
    int has_hardware_key, has_cloud_key;
} parse_ctx;

static tc_cost_field *field_of(tc_cost_profile *p, const key_spec *k)
{
    return (tc_cost_field *)((char *)p + k->offset);
}

/* Records the first error only: later ones are often its consequences. */
static int fail(parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parse_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tc_ini_vfail(&c->ini, fmt, ap);
    va_end(ap);
    return 0;
}

static int set_top_level(parse_ctx *c, const char *name, const char *value)
{
    return tc_ini_top_level(&c->ini, name, value, c->p->currency, sizeof c->p->currency);
}

static int known_section(const char *s)
{
    for (int i = 0; i < N_SECTIONS; i++)
        if (strcmp(sections[i], s) == 0)
            return 1;
    return 0;
}

/* The comma-separated keys of `section`, for "unknown key" messages. */
static void keys_of(const char *section, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].section, section) == 0) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", used ? ", " : "", keys[i].key);
        }
}

static int exclusive_ok(parse_ctx *c, const key_spec *k)
{
    if (strcmp(k->section, "hardware") == 0)
        c->has_hardware_key = 1;
    if (strcmp(k->section, "cloud") == 0)
        c->has_cloud_key = 1;
    if (c->has_hardware_key && c->has_cloud_key)
        return fail(c,
                    "[%s] %s: a profile has [hardware] or [cloud], not both (owned hardware "
                    "or a rented device-hour)",
                    k->section, k->key);
    return 1;
}

static int set_value(parse_ctx *c, const key_spec *k, const char *value)
{
    tc_cost_field *f = field_of(c->p, k);
    if (f->valid)
        return fail(c, "[%s] %s: given twice", k->section, k->key);
    double v;
    if (tc_parse_plain_number(value, &v) < 0)
        return fail(c, "[%s] %s: '%s' is not a number (expected %s)", k->section, k->key, value,
                    k->expect);
    if (v < k->min || v > k->max || (k->min_open && v <= k->min))
        return fail(c, "[%s] %s: %s is out of range (expected %s)", k->section, k->key, value,
                    k->expect);
    if (!exclusive_ok(c, k))
        return 0;
    *f = (tc_cost_field){1, v, c->ini.line};
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *c = user;
    if (c->ini.failed)
        return 0;
    if (section[0] == '\0')
        return set_top_level(c, name, value);
    if (!known_section(section))
        return fail(c,
                    "unknown section [%s] (known: [hardware], [cloud], [power], "
                    "[operations], [workload])",
                    section);
    for (int i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, name) == 0)
            return set_value(c, &keys[i], value);
    char known[256];
    keys_of(section, known, sizeof known);
    return fail(c, "[%s] unknown key '%s' (known: %s)", section, name, known);
}

/* Appends "[section] key (unit)" of a missing key to the message. */
static void add_missing(char *buf, size_t len, const char *section, const char *key)
{
    for (int i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s[%s] %s (%s)", used ? "; " : "", section, key,
                     keys[i].expect);
        }
}

/* The required keys: the price basis, the power price for owned hardware,
 * the utilisation, and both halves of each operations product. */
static tc_err check_required(const tc_cost_profile *p, char *err, size_t errlen)
{
    char miss[1024] = "";
    if (!p->is_cloud && !p->hw_price.valid && !p->amortize_months.valid)
        snprintf(miss, sizeof miss,
                 "[hardware] price and amortize_months, or [cloud] "
                 "price_per_hour");
    else if (!p->is_cloud) {
        if (!p->hw_price.valid)
            add_missing(miss, sizeof miss, "hardware", "price");
        if (!p->amortize_months.valid)
            add_missing(miss, sizeof miss, "hardware", "amortize_months");
        if (!p->price_per_kwh.valid)
            add_missing(miss, sizeof miss, "power", "price_per_kwh");
    }
    if (!p->utilization.valid)
        add_missing(miss, sizeof miss, "workload", "utilization");
    if (p->ops_hours_per_month.valid != p->hourly_rate.valid)
        add_missing(miss, sizeof miss, "operations",
                    p->hourly_rate.valid ? "hours_per_month" : "hourly_rate");
    if (p->adaptation_days.valid != p->day_rate.valid)
        add_missing(miss, sizeof miss, "operations",
                    p->day_rate.valid ? "adaptation_days" : "day_rate");
    if (miss[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: missing %s", p->name, miss);
    if (p->is_cloud && p->adaptation_days.valid)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: [operations] adaptation_days: a cloud profile has no "
                       "amortize_months to spread it over (fold it into hours_per_month)",
                       p->name, p->adaptation_days.line);
    return TC_OK;
}

tc_err tc_cost_profile_parse(const char *name, const char *text, size_t len, tc_cost_profile *out,
                             char *err, size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    parse_ctx c = {.p = out};
    tc_ini_init(&c.ini, out->name, text, len, err, errlen);
    tc_err status = tc_ini_run(&c.ini, handler, &c);
    if (status != TC_OK)
        goto fail;
    out->is_cloud = c.has_cloud_key;
    if (!out->currency[0])
        memcpy(out->currency, "USD", 4);
    status = check_required(out, err, errlen);
    if (status == TC_OK)
        return TC_OK;
fail:
    memset(out, 0, sizeof *out);
    return status;
}

tc_err tc_cost_profile_load(const char *path, tc_cost_profile *out, char *err, size_t errlen)
{
    if (!path || !out || !err || !errlen)
        return TC_ERR_INVALID;
    char *text;
    size_t len;
    /* A profile is a few hundred bytes; refuse anything absurd. */
    tc_err status = tc_read_file(path, 1u << 20, "a cost profile", &text, &len, err, errlen);
    if (status == TC_OK)
        status = tc_cost_profile_parse(path, text, len, out, err, errlen);
    free(text);
    return status;
}
