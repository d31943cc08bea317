#include "cost_profile.h"

#include "core/tc_file.h"
#include "core/tc_ini.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 1e15
#define NUM(s, k, member, lo, hi, fl, ex)                                                          \
    {                                                                                              \
        .section = s, .key = k, .kind = TC_INI_NUMBER, .flags = fl,                                \
        TC_INI_NUMBER_AT(tc_cost_profile, member), .min = lo, .max = hi, .expect = ex              \
    }

/* [power] scope: its index + 1 is the tc_power_scope. */
static const char *const scopes[] = {"box", "board", "package", NULL};

const char *tc_power_scope_name(tc_power_scope s)
{
    static const char *const names[] = {"not available", "whole box", "GPU board", "CPU package",
                                        "GPU board + CPU package"};
    return (unsigned)s <= TC_SCOPE_DEVICES ? names[s] : "?";
}

/* The known keys: where each goes, what it accepts and how to say so. The
 * requirements depend on one another (owned or rented, both halves of a
 * product), so check_required says them, not the table. */
static const tc_ini_key keys[] = {
    NUM("hardware", "price", hw_price, 0, BIG, 0,
        "currency units, the whole server share, e.g. 2400"),
    NUM("hardware", "amortize_months", amortize_months, 0, 1200, TC_INI_ABOVE_MIN,
        "months > 0, e.g. 36"),
    NUM("hardware", "residual_fraction", residual_fraction, 0, 1, 0,
        "a fraction 0..1 of the price left at the end, e.g. 0.2"),
    NUM("cloud", "price_per_hour", cloud_price_per_hour, 0, BIG, 0,
        "currency units per device-hour, e.g. 2.49"),
    NUM("power", "price_per_kwh", price_per_kwh, 0, BIG, 0, "currency units per kWh, e.g. 0.30"),
    NUM("power", "pue", pue, 1, 10, 0, "a ratio >= 1, e.g. 1.4"),
    NUM("power", "idle_watts", idle_power_w, 0, 1e6, 0, "watts, e.g. 60"),
    NUM("power", "busy_watts", busy_power_w, 0, 1e6, 0, "watts, e.g. 380"),
    {.section = "power",
     .key = "scope",
     .kind = TC_INI_ANSWER,
     .at = offsetof(tc_cost_profile, power_scope),
     .line_at = offsetof(tc_cost_profile, power_scope_line),
     .words = scopes,
     .expect = "box (the whole machine at the wall), board (one GPU's board) or package (a CPU "
               "package): what idle_watts and busy_watts cover"},
    NUM("operations", "hours_per_month", ops_hours_per_month, 0, 1e6, 0,
        "person-hours per month, e.g. 4"),
    NUM("operations", "hourly_rate", hourly_rate, 0, BIG, 0,
        "currency units per person-hour, e.g. 80"),
    NUM("operations", "adaptation_days", adaptation_days, 0, 1e6, 0,
        "one-time person-days, e.g. 10"),
    NUM("operations", "day_rate", day_rate, 0, BIG, 0, "currency units per person-day, e.g. 640"),
    NUM("workload", "utilization", utilization, 0, 1, TC_INI_ABOVE_MIN,
        "the busy fraction of the month, 0 < u <= 1, e.g. 0.5"),
    NUM("workload", "tokens_per_month", tokens_per_month, 0, BIG, TC_INI_ABOVE_MIN,
        "output tokens per month > 0, e.g. 2e9"),
    {.section = "",
     .key = "currency",
     .kind = TC_INI_STRING,
     .at = offsetof(tc_cost_profile, currency),
     .size = sizeof(((tc_cost_profile *)0)->currency),
     .expect = "e.g. USD"},
};
#define N_KEYS ((int)(sizeof keys / sizeof keys[0]))

/* Owned hardware or a rented device-hour, not both. */
static int one_basis(tc_ini *ini, const tc_ini_key *k, void *out)
{
    const tc_cost_profile *p = out;
    int hardware = p->hw_price.valid || p->amortize_months.valid || p->residual_fraction.valid;
    int basis = strcmp(k->section, "hardware") == 0 || strcmp(k->section, "cloud") == 0;
    if (basis && hardware && p->cloud_price_per_hour.valid)
        return tc_ini_fail(ini,
                           "[%s] %s: a profile has [hardware] or [cloud], not both (owned "
                           "hardware or a rented device-hour)",
                           k->section, k->key);
    return 1;
}

static const tc_ini_schema schema = {
    .keys = keys, .n_keys = N_KEYS, .dialect = TC_INI_PARENS, .check = one_basis};

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
    tc_ini ini;
    tc_ini_init(&ini, out->name, text, len, err, errlen);
    tc_err status = tc_ini_read(&ini, &schema, out);
    if (status != TC_OK)
        goto fail;
    out->is_cloud = out->cloud_price_per_hour.valid;
    if (!out->currency[0])
        memcpy(out->currency, "USD", 4);
    status = check_required(out, err, errlen);
    if (status == TC_OK)
        return TC_OK;
fail:
    memset(out, 0, sizeof *out);
    return status;
}

static tc_err parse_any(const char *name, const char *text, size_t len, void *out, char *err,
                        size_t errlen)
{
    return tc_cost_profile_parse(name, text, len, out, err, errlen);
}

tc_err tc_cost_profile_load(const char *path, tc_cost_profile *out, char *err, size_t errlen)
{
    return tc_ini_load(path, "a cost profile", parse_any, out, err, errlen);
}
