/* The assessment file of the lock-in model (lockin.h): strict INI read
 * with a table of its keys (core/tc_ini), as cost profiles are. */
#include "lockin.h"

#include "core/tc_file.h"
#include "core/tc_ini.h"
#include "core/tc_number.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F(member) offsetof(tc_lockin, member)
#define BIG 1e15
#define DAYS 1e6 /* no move takes a million person-days; beyond is a typo */
#define DAYS_EXPECT "person-days as LOW..HIGH, LOW..MODE..HIGH or one number, e.g. "
#define REQ TC_INI_REQUIRED
#define RANGE(s, k, m, mx, ex)                                                                     \
    {                                                                                              \
        .section = s, .key = k, .kind = TC_INI_CUSTOM, .flags = REQ, .at = F(m), .max = mx,        \
        .parse = read_range, .expect = ex                                                          \
    }
#define VALUE(s, k, m, mn, mx, fl, ex)                                                             \
    {                                                                                              \
        .section = s, .key = k, .kind = TC_INI_NUMBER, .flags = fl,                                \
        TC_INI_NUMBER_AT(tc_lockin, m), .min = mn, .max = mx, .expect = ex                         \
    }
#define ANSWER(k, m, w, ex)                                                                        \
    {                                                                                              \
        .section = "decision", .key = k, .kind = TC_INI_ANSWER, .at = F(m),                        \
        .line_at = F(m##_line), .words = w, .expect = ex                                           \
    }

static int read_range(const tc_ini_key *k, const char *value, int line, void *dest, char *why,
                      size_t whylen);

static const char *const yes_no[] = {"yes", "no", NULL}; /* TC_LOCKIN_YES, _NO */
static const char *const yes_no_unknown[] = {"yes", "no", "unknown", NULL};

/* The known keys: where each goes, what it accepts and how to say so. */
static const tc_ini_key keys[] = {
    RANGE("effort", "environment", effort[TC_LOCKIN_ENVIRONMENT], DAYS, DAYS_EXPECT "5..10"),
    RANGE("effort", "operators", effort[TC_LOCKIN_OPERATORS], DAYS, DAYS_EXPECT "6..15"),
    RANGE("effort", "performance", effort[TC_LOCKIN_PERFORMANCE], DAYS, DAYS_EXPECT "8..12..20"),
    RANGE("effort", "stability", effort[TC_LOCKIN_STABILITY], DAYS, DAYS_EXPECT "5..15"),
    RANGE("effort", "learning", effort[TC_LOCKIN_LEARNING], DAYS, DAYS_EXPECT "3..8"),
    /* optional: one kernel of a profiler's tuning list (lockin --kernels) */
    {.section = "effort",
     .key = "performance_per_kernel",
     .kind = TC_INI_CUSTOM,
     .at = F(kernel_effort),
     .max = DAYS,
     .parse = read_range,
     .expect = DAYS_EXPECT "2..3..5"},
    VALUE("rates", "day_cost", day_cost, 0, BIG, REQ,
          "currency units per person-day, all costs included, e.g. 800"),
    VALUE("risk", "probability", probability, 0, 1, REQ,
          "a probability 0..1 that the critical path is blocked, e.g. 0.3"),
    VALUE("risk", "incident_cost", incident_cost, 0, BIG, REQ,
          "currency units lost when the critical path is blocked, e.g. 20000"),
    RANGE("talent", "premium", premium, 1000,
          "extra hires in hire-equivalents (0.5 = half a recruitment more) as a number or range, "
          "e.g. 0..0.5..1"),
    VALUE("talent", "hire_cost", hire_cost, 0, BIG, REQ,
          "currency units to recruit one engineer, e.g. 15000"),
    VALUE("hardware", "units", units, 0, 1e9, REQ | TC_INI_ABOVE_MIN | TC_INI_WHOLE,
          "a whole number of cards (or boxes) > 0, e.g. 8"),
    VALUE("hardware", "price_incumbent", price_incumbent, 0, BIG, REQ,
          "currency units per unit of the platform you have, e.g. 1800"),
    VALUE("hardware", "price_alternative", price_alternative, 0, BIG, REQ,
          "currency units per unit of the platform you consider, e.g. 1000"),
    VALUE("horizon", "months", months, 0, 1200, REQ | TC_INI_ABOVE_MIN,
          "months > 0 to weigh the move over, e.g. 24"),
    VALUE("horizon", "tokens_per_month", tokens_per_month, 0, BIG, TC_INI_ABOVE_MIN,
          "output tokens per month > 0, e.g. 2e9"),
    ANSWER("profiler_skill", profiler_skill, yes_no,
           "yes or no: someone on the team reads a profiler and edits kernels"),
    ANSWER("fallback_path", fallback_path, yes_no,
           "yes or no: a hybrid deployment with a way back is designed"),
    ANSWER("soak_passed", soak_passed, yes_no_unknown,
           "yes, no or unknown: a 24-hour run on the alternative passed"),
    {.section = "",
     .key = "currency",
     .kind = TC_INI_STRING,
     .at = F(currency),
     .size = sizeof(((tc_lockin *)0)->currency),
     .expect = "e.g. USD"},
};

/* Every section and key is known from its first line; all but
 * tokens_per_month and [decision] are required. */
static const tc_ini_schema schema = {.keys = keys,
                                     .n_keys = sizeof keys / sizeof keys[0],
                                     .dialect = TC_INI_SEMICOLON,
                                     .strict_sections = 1};

/* One number of a range: why it is not one, or 0. */
static const char *number_of(const char *s, double *out)
{
    if (tc_parse_plain_number(s, out) == 0)
        return NULL;
    if (s[0] == '-' && tc_parse_plain_number(s + 1, out) == 0)
        return "is negative";
    return "is not a number";
}

/* Splits at "..", trims blanks around each part; at most 3 parts. */
static int split_range(const char *text, char parts[3][64])
{
    int n = 0;
    const char *p = text;
    for (;;) {
        const char *dots = strstr(p, "..");
        size_t len = dots ? (size_t)(dots - p) : strlen(p);
        if (n == 3 || len >= 64)
            return -1;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        memcpy(parts[n], p, len);
        parts[n++][len] = '\0';
        if (!dots)
            return n;
        p = dots + 2;
    }
}

tc_err tc_lockin_range_parse(const char *text, tc_lockin_range *out, char *err, size_t errlen)
{
    if (!text || !out)
        return tc_fail(err, errlen, TC_ERR_INVALID, "no range");
    char parts[3][64];
    double v[3];
    if (strstr(text, "..."))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "'%s': three dots; a range is LOW..HIGH or LOW..MODE..HIGH, two dots", text);
    int n = split_range(text, parts);
    if (n < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE, "'%s' is not a range", text);
    for (int i = 0; i < n; i++) {
        const char *why = number_of(parts[i], &v[i]);
        if (why)
            return tc_fail(err, errlen, TC_ERR_PARSE, "'%s' %s", parts[i], why);
    }
    memset(out, 0, sizeof *out);
    out->valid = 1;
    out->has_mode = n == 3;
    out->low = v[0];
    out->high = v[n - 1];
    out->mode = n == 3 ? v[1] : n == 1 ? v[0] : (v[0] + v[1]) / 2;
    if (out->low > out->high)
        return tc_fail(err, errlen, TC_ERR_PARSE, "inverted range: low %g is above high %g",
                       out->low, out->high);
    if (n == 3 && (out->mode < out->low || out->mode > out->high))
        return tc_fail(err, errlen, TC_ERR_PARSE, "the mode %g is outside %g..%g", out->mode,
                       out->low, out->high);
    return TC_OK;
}

/* A range key of the file, with its upper bound k->max. */
static int read_range(const tc_ini_key *k, const char *value, int line, void *dest, char *why,
                      size_t whylen)
{
    tc_lockin_range *r = dest;
    if (tc_lockin_range_parse(value, r, why, whylen) != TC_OK)
        return -1;
    if (r->high > k->max) {
        snprintf(why, whylen, "%g is out of range (at most %g)", r->high, k->max);
        return -1;
    }
    r->line = line;
    snprintf(r->source, sizeof r->source, "assessment");
    return 0;
}

tc_err tc_lockin_parse(const char *name, const char *text, size_t len, tc_lockin *out, char *err,
                       size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    tc_ini ini;
    tc_ini_init(&ini, out->name, text, len, err, errlen);
    tc_err status = tc_ini_read(&ini, &schema, out);
    if (status != TC_OK) {
        memset(out, 0, sizeof *out);
        return status;
    }
    if (!out->currency[0])
        memcpy(out->currency, "USD", 4);
    return TC_OK;
}

static tc_err parse_any(const char *name, const char *text, size_t len, void *out, char *err,
                        size_t errlen)
{
    return tc_lockin_parse(name, text, len, out, err, errlen);
}

tc_err tc_lockin_load(const char *path, tc_lockin *out, char *err, size_t errlen)
{
    return tc_ini_load(path, "an assessment", parse_any, out, err, errlen);
}
