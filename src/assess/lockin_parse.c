/* The assessment file of the lock-in model (lockin.h): strict INI with
 * inih, in the manner of cost_profile.c. */
#include "lockin.h"

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

typedef enum key_kind { K_RANGE, K_VALUE, K_ANSWER } key_kind;

/* One known key: where it goes, what it accepts and how to say so. */
typedef struct key_spec {
    const char *section, *key;
    key_kind kind;
    size_t offset;   /* of its field in tc_lockin */
    double min, max; /* K_VALUE: bounds; K_RANGE: max of high */
    int min_open;    /* 1: the value must be above min */
    int whole;       /* 1: a whole number */
    int required;
    int unknown_ok; /* K_ANSWER: "unknown" is an answer too */
    const char *expect;
} key_spec;

#define F(member) offsetof(tc_lockin, member)
#define BIG 1e15
#define DAYS 1e6 /* no move takes a million person-days; beyond is a typo */
#define DAYS_EXPECT "person-days as LOW..HIGH, LOW..MODE..HIGH or one number, e.g. "
#define RANGE(s, k, m, mx, ex)                                                                     \
    {                                                                                              \
        .section = s, .key = k, .kind = K_RANGE, .offset = F(m), .max = mx, .required = 1,         \
        .expect = ex                                                                               \
    }
#define VALUE(s, k, m, mn, mx, open, req, ex)                                                      \
    {                                                                                              \
        .section = s, .key = k, .kind = K_VALUE, .offset = F(m), .min = mn, .max = mx,             \
        .min_open = open, .required = req, .expect = ex                                            \
    }
#define ANSWER(k, m, unk, ex)                                                                      \
    {                                                                                              \
        .section = "decision", .key = k, .kind = K_ANSWER, .offset = F(m), .unknown_ok = unk,      \
        .expect = ex                                                                               \
    }

static const key_spec keys[] = {
    RANGE("effort", "environment", effort[TC_LOCKIN_ENVIRONMENT], DAYS, DAYS_EXPECT "5..10"),
    RANGE("effort", "operators", effort[TC_LOCKIN_OPERATORS], DAYS, DAYS_EXPECT "6..15"),
    RANGE("effort", "performance", effort[TC_LOCKIN_PERFORMANCE], DAYS, DAYS_EXPECT "8..12..20"),
    RANGE("effort", "stability", effort[TC_LOCKIN_STABILITY], DAYS, DAYS_EXPECT "5..15"),
    RANGE("effort", "learning", effort[TC_LOCKIN_LEARNING], DAYS, DAYS_EXPECT "3..8"),
    VALUE("rates", "day_cost", day_cost, 0, BIG, 0, 1,
          "currency units per person-day, all costs included, e.g. 800"),
    VALUE("risk", "probability", probability, 0, 1, 0, 1,
          "a probability 0..1 that the critical path is blocked, e.g. 0.3"),
    VALUE("risk", "incident_cost", incident_cost, 0, BIG, 0, 1,
          "currency units lost when the critical path is blocked, e.g. 20000"),
    RANGE("talent", "premium", premium, 1000,
          "extra hires in hire-equivalents (0.5 = half a recruitment more) as a number or range, "
          "e.g. 0..0.5..1"),
    VALUE("talent", "hire_cost", hire_cost, 0, BIG, 0, 1,
          "currency units to recruit one engineer, e.g. 15000"),
    {.section = "hardware",
     .key = "units",
     .kind = K_VALUE,
     .offset = F(units),
     .max = 1e9,
     .min_open = 1,
     .whole = 1,
     .required = 1,
     .expect = "a whole number of cards (or boxes) > 0, e.g. 8"},
    VALUE("hardware", "price_incumbent", price_incumbent, 0, BIG, 0, 1,
          "currency units per unit of the platform you have, e.g. 1800"),
    VALUE("hardware", "price_alternative", price_alternative, 0, BIG, 0, 1,
          "currency units per unit of the platform you consider, e.g. 1000"),
    VALUE("horizon", "months", months, 0, 1200, 1, 1, "months > 0 to weigh the move over, e.g. 24"),
    VALUE("horizon", "tokens_per_month", tokens_per_month, 0, BIG, 1, 0,
          "output tokens per month > 0, e.g. 2e9"),
    ANSWER("profiler_skill", profiler_skill, 0,
           "yes or no: someone on the team reads a profiler and edits kernels"),
    ANSWER("fallback_path", fallback_path, 0,
           "yes or no: a hybrid deployment with a way back is designed"),
    ANSWER("soak_passed", soak_passed, 1,
           "yes, no or unknown: a 24-hour run on the alternative passed"),
};
#define N_KEYS ((int)(sizeof keys / sizeof keys[0]))

static const char *const sections[] = {"effort",   "rates",   "risk",    "talent",
                                       "hardware", "horizon", "decision"};
#define N_SECTIONS ((int)(sizeof sections / sizeof sections[0]))
#define KNOWN_SECTIONS "[effort], [rates], [risk], [talent], [hardware], [horizon], [decision]"

typedef struct parse_ctx {
    tc_ini ini; /* the text, the line, the first error */
    tc_lockin *a;
    int section_line[N_SECTIONS]; /* of its first header; 0: absent */
    int key_line[N_KEYS];         /* for duplicates of answers */
} parse_ctx;

static int fail(parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parse_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tc_ini_vfail(&c->ini, fmt, ap);
    va_end(ap);
    return 0;
}

static int section_index(const char *s)
{
    for (int i = 0; i < N_SECTIONS; i++)
        if (strcmp(sections[i], s) == 0)
            return i;
    return -1;
}

/* Notes where a "[section]" line starts (column 0, as inih reads it when no
 * value continues) so that a missing key can name its section's line, and
 * rejects an unknown section even when it has no keys. */
static void note_header(void *user, const char *line)
{
    parse_ctx *c = user;
    if (line[0] != '[')
        return;
    const char *end = strchr(line, ']');
    if (!end)
        return; /* inih reports the syntax error */
    char name[64];
    size_t n = (size_t)(end - line - 1);
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, line + 1, n);
    name[n] = '\0';
    int i = section_index(name);
    if (i < 0)
        fail(c, "unknown section [%s] (known: " KNOWN_SECTIONS ")", name);
    else if (!c->section_line[i])
        c->section_line[i] = c->ini.line;
}

/* One number of a range or a value: why it is not one, or 0. */
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

static int set_range(parse_ctx *c, const key_spec *k, const char *value)
{
    tc_lockin_range *r = (tc_lockin_range *)((char *)c->a + k->offset);
    if (r->valid)
        return fail(c, "[%s] %s: given twice; expected it once", k->section, k->key);
    char why[200];
    if (tc_lockin_range_parse(value, r, why, sizeof why) != TC_OK)
        return fail(c, "[%s] %s: %s; expected %s", k->section, k->key, why, k->expect);
    if (r->high > k->max)
        return fail(c, "[%s] %s: %g is out of range (at most %g); expected %s", k->section, k->key,
                    r->high, k->max, k->expect);
    r->line = c->ini.line;
    snprintf(r->source, sizeof r->source, "assessment");
    return 1;
}

static int set_value(parse_ctx *c, const key_spec *k, const char *value)
{
    tc_lockin_value *f = (tc_lockin_value *)((char *)c->a + k->offset);
    if (f->valid)
        return fail(c, "[%s] %s: given twice; expected it once", k->section, k->key);
    double v;
    const char *why = number_of(value, &v);
    if (why)
        return fail(c, "[%s] %s: '%s' %s; expected %s", k->section, k->key, value, why, k->expect);
    if (v < k->min || v > k->max || (k->min_open && v <= k->min) || (k->whole && v != floor(v)))
        return fail(c, "[%s] %s: %s is out of range; expected %s", k->section, k->key, value,
                    k->expect);
    *f = (tc_lockin_value){1, v, c->ini.line};
    return 1;
}

static int set_answer(parse_ctx *c, int ki, const char *value)
{
    const key_spec *k = &keys[ki];
    tc_lockin_answer *f = (tc_lockin_answer *)((char *)c->a + k->offset);
    if (c->key_line[ki])
        return fail(c, "[%s] %s: given twice; expected it once", k->section, k->key);
    if (strcmp(value, "yes") == 0)
        *f = TC_LOCKIN_YES;
    else if (strcmp(value, "no") == 0)
        *f = TC_LOCKIN_NO;
    else if (k->unknown_ok && strcmp(value, "unknown") == 0)
        *f = TC_LOCKIN_UNKNOWN;
    else
        return fail(c, "[%s] %s: '%s' is not an answer; expected %s", k->section, k->key, value,
                    k->expect);
    c->key_line[ki] = c->ini.line;
    return 1;
}

static int set_top_level(parse_ctx *c, const char *name, const char *value)
{
    return tc_ini_top_level(&c->ini, name, value, c->a->currency, sizeof c->a->currency);
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

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *c = user;
    if (c->ini.failed)
        return 0;
    if (section[0] == '\0')
        return set_top_level(c, name, value);
    if (section_index(section) < 0)
        return fail(c, "unknown section [%s] (known: " KNOWN_SECTIONS ")", section);
    for (int i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].section, section) != 0 || strcmp(keys[i].key, name) != 0)
            continue;
        if (keys[i].kind == K_RANGE)
            return set_range(c, &keys[i], value);
        if (keys[i].kind == K_VALUE)
            return set_value(c, &keys[i], value);
        return set_answer(c, i, value);
    }
    char known[256];
    keys_of(section, known, sizeof known);
    return fail(c, "[%s] %s: unknown key; expected one of: %s", section, name, known);
}

/* The index of a key known to be in the table (key names are unique). */
static int key_index(const char *key)
{
    int i = 0;
    while (i < N_KEYS - 1 && strcmp(keys[i].key, key) != 0)
        i++;
    return i;
}

static int is_given(const tc_lockin *a, const key_spec *k)
{
    const char *p = (const char *)a + k->offset;
    return k->kind == K_RANGE ? ((const tc_lockin_range *)p)->valid
                              : ((const tc_lockin_value *)p)->valid;
}

/* The first missing required key, named at the line of its section (or
 * without a line when the whole section is absent), and how many more. */
static tc_err check_required(const tc_lockin *a, const parse_ctx *c, char *err, size_t errlen)
{
    const key_spec *first = NULL;
    int more = 0;
    for (int i = 0; i < N_KEYS; i++) {
        if (!keys[i].required || is_given(a, &keys[i]))
            continue;
        if (first)
            more++;
        else
            first = &keys[i];
    }
    if (!first)
        return TC_OK;
    char tail[64] = "";
    if (more)
        snprintf(tail, sizeof tail, " (and %d more required key%s)", more, more > 1 ? "s" : "");
    int line = c->section_line[section_index(first->section)];
    if (!line)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: [%s] %s: missing, and so is the [%s] section%s; expected %s", a->name,
                       first->section, first->key, first->section, tail, first->expect);
    return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: [%s] %s: missing%s; expected %s", a->name,
                   line, first->section, first->key, tail, first->expect);
}

tc_err tc_lockin_parse(const char *name, const char *text, size_t len, tc_lockin *out, char *err,
                       size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    parse_ctx c = {.a = out};
    tc_ini_init(&c.ini, out->name, text, len, err, errlen);
    c.ini.on_line = note_header;
    c.ini.user = &c;
    tc_err status = tc_ini_run(&c.ini, handler, &c);
    if (status == TC_OK)
        status = check_required(out, &c, err, errlen);
    if (status != TC_OK) {
        memset(out, 0, sizeof *out);
        return status;
    }
    out->profiler_skill_line = c.key_line[key_index("profiler_skill")];
    out->fallback_path_line = c.key_line[key_index("fallback_path")];
    out->soak_passed_line = c.key_line[key_index("soak_passed")];
    if (!out->currency[0])
        memcpy(out->currency, "USD", 4);
    return TC_OK;
}

tc_err tc_lockin_load(const char *path, tc_lockin *out, char *err, size_t errlen)
{
    if (!path || !out || !err || !errlen)
        return TC_ERR_INVALID;
    char *text;
    size_t len;
    /* An assessment is a few hundred bytes; refuse anything absurd. */
    tc_err status = tc_read_file(path, 1u << 20, "an assessment", &text, &len, err, errlen);
    if (status == TC_OK)
        status = tc_lockin_parse(path, text, len, out, err, errlen);
    free(text);
    return status;
}
