/* --step-regex: a POSIX extended regex with named groups, (?<name>...),
 * which ERE does not have: each is turned into a plain group and its name
 * kept beside its number. */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer_internal.h"

const char tc_trainer_regex_groups[] =
    "step, loss, lr, samples, tokens, samples_per_s, tokens_per_s, peak_memory_bytes";

static const char *const GROUPS[TC_TRAINER_GROUP_COUNT] = {
    "step",   "loss",          "lr",           "samples",
    "tokens", "samples_per_s", "tokens_per_s", "peak_memory_bytes"};

static int group_index(const char *name, size_t len)
{
    for (int i = 0; i < TC_TRAINER_GROUP_COUNT; i++)
        if (strlen(GROUPS[i]) == len && memcmp(GROUPS[i], name, len) == 0)
            return i;
    return -1;
}

/* Copies a bracket expression starting at p[0] == '['; returns past it. */
static const char *bracket(const char *p, char *out, size_t *o)
{
    out[(*o)++] = *p++;
    if (*p == '^')
        out[(*o)++] = *p++;
    if (*p == ']')
        out[(*o)++] = *p++;
    while (*p && *p != ']')
        out[(*o)++] = *p++;
    if (*p)
        out[(*o)++] = *p++;
    return p;
}

static int quantifier(char c)
{
    return c == '*' || c == '+' || c == '?' || c == '{';
}

/* A {n,m} count: past it, or NULL when a number is over MAX_COUNT (glibc
 * builds an automaton of that many copies, nested counts multiply). */
#define MAX_COUNT 100
static const char *count_ok(const char *p)
{
    for (p++; *p && *p != '}'; p++)
        if (isdigit((unsigned char)*p) && strtol(p, NULL, 10) > MAX_COUNT)
            return NULL;
    return p;
}

/* What glibc's regcomp would take exponential memory or time over: a
 * quantifier on a quantifier ("a++", "a*{9}") or a large count. */
static tc_err check_quantifier(const char *p, int after_quantifier, char *err, size_t errlen)
{
    if (after_quantifier)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--step-regex: '%c' follows another quantifier: give one ('+', '*', '?' or "
                       "{n,m}) per atom",
                       *p);
    if (*p == '{' && !count_ok(p))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--step-regex: a count {n,m} over %d: use '+' or '*' instead", MAX_COUNT);
    return TC_OK;
}

tc_err tc_trainer_regex_check(const char *pat, const char *opt, char *err, size_t errlen)
{
    if (strlen(pat) > 1024)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s: %zu characters; at most 1024", opt,
                       strlen(pat));
    int quantified = 0;
    for (const char *p = pat; *p;) {
        if (quantifier(*p)) {
            if (check_quantifier(p, quantified, err, errlen) != TC_OK) {
                /* the message names --step-regex: name the option asked */
                size_t n = strlen("--step-regex");
                char rest[400];
                snprintf(rest, sizeof rest, "%s", err + n);
                return tc_fail(err, errlen, TC_ERR_INVALID, "%s%s", opt, rest);
            }
            quantified = 1;
            p = *p == '{' && strchr(p, '}') ? strchr(p, '}') + 1 : p + 1;
            continue;
        }
        quantified = 0;
        if (*p == '[') {
            size_t o = 0;
            char *buf = malloc(strlen(p) + 1);
            if (!buf)
                return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
            p = bracket(p, buf, &o);
            free(buf);
        } else {
            p += *p == '\\' && p[1] ? 2 : 1;
        }
    }
    return TC_OK;
}

/* Translates pattern into out (as long as it, plus one) and fills
 * slot[] (the group number of each name, 0: absent). */
static tc_err translate(const char *pat, char *out, int *slot, char *err, size_t errlen)
{
    size_t o = 0;
    int group = 0, quantified = 0;
    for (const char *p = pat; *p;) {
        if (quantifier(*p)) {
            tc_err e = check_quantifier(p, quantified, err, errlen);
            if (e != TC_OK)
                return e;
            const char *end = *p == '{' ? strchr(p, '}') : p;
            size_t n = end ? (size_t)(end - p) + 1 : strlen(p); /* a count whole */
            memcpy(out + o, p, n);
            o += n;
            p += n;
            quantified = 1;
            continue;
        }
        quantified = 0;
        if (*p == '\\') {
            out[o++] = *p++;
            if (*p)
                out[o++] = *p++;
        } else if (*p == '[') {
            p = bracket(p, out, &o);
        } else if (*p == '(') {
            group++;
            out[o++] = *p++;
            if (p[0] == '?' && p[1] == '<') {
                const char *name = p + 2, *end = strchr(name, '>');
                if (!end)
                    return tc_fail(err, errlen, TC_ERR_INVALID,
                                   "--step-regex: a (?<name> group is not closed with '>'");
                int g = group_index(name, (size_t)(end - name));
                if (g < 0)
                    return tc_fail(err, errlen, TC_ERR_INVALID,
                                   "--step-regex: no group '%.*s' is known; name the groups "
                                   "from: %s",
                                   (int)(end - name), name, tc_trainer_regex_groups);
                slot[g] = group;
                p = end + 1;
            } else if (p[0] == '?') {
                return tc_fail(err, errlen, TC_ERR_INVALID,
                               "--step-regex: only (?<name>...) groups are understood (POSIX "
                               "extended regex otherwise)");
            }
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    return TC_OK;
}

tc_err tc_trainer_regex_compile(tc_trainer_regex *r, const char *pattern, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (strlen(pattern) > 1024)
        return tc_fail(err, errlen, TC_ERR_INVALID, "--step-regex: %zu characters; at most 1024",
                       strlen(pattern));
    char *ere = malloc(strlen(pattern) + 1);
    if (!ere)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    tc_err e = translate(pattern, ere, r->slot, err, errlen);
    int any = 0;
    for (int i = 0; i < TC_TRAINER_GROUP_COUNT; i++)
        any |= r->slot[i] > 0;
    if (e == TC_OK && !any)
        e = tc_fail(err, errlen, TC_ERR_INVALID,
                    "--step-regex: no named group; a step line needs at least one of (?<name>...) "
                    "with name from: %s, e.g. 'it ([0-9]+) loss=(?<loss>[0-9.]+)'",
                    tc_trainer_regex_groups);
    if (e == TC_OK) {
        int rc = regcomp(&r->re, ere, REG_EXTENDED);
        if (rc != 0) {
            char why[200];
            regerror(rc, &r->re, why, sizeof why);
            e = tc_fail(err, errlen, TC_ERR_INVALID, "--step-regex '%s': %s", pattern, why);
        } else {
            r->compiled = 1;
            r->n_groups = r->re.re_nsub;
        }
    }
    free(ere);
    return e;
}

void tc_trainer_regex_free(tc_trainer_regex *r)
{
    if (r && r->compiled)
        regfree(&r->re);
    if (r)
        r->compiled = 0;
}

static int group_num(const char *line, const regmatch_t *m, double *v)
{
    if (m->rm_so < 0 || m->rm_eo - m->rm_so > 60)
        return 0;
    char buf[64];
    size_t n = (size_t)(m->rm_eo - m->rm_so);
    memcpy(buf, line + m->rm_so, n);
    buf[n] = '\0';
    char *end;
    *v = strtod(buf, &end);
    return end != buf;
}

int tc_trainer_regex_match(const tc_trainer_regex *r, const char *line, tc_train_step *s)
{
    regmatch_t m[TC_TRAINER_MAX_SUB];
    size_t nm = r->n_groups + 1 < TC_TRAINER_MAX_SUB ? r->n_groups + 1 : TC_TRAINER_MAX_SUB;
    if (!r->compiled || regexec(&r->re, line, nm, m, 0) != 0)
        return 0;
    double v[TC_TRAINER_GROUP_COUNT];
    int got[TC_TRAINER_GROUP_COUNT] = {0};
    for (int i = 0; i < TC_TRAINER_GROUP_COUNT; i++)
        got[i] =
            r->slot[i] > 0 && (size_t)r->slot[i] < nm && group_num(line, &m[r->slot[i]], &v[i]);
    if (got[0] && v[0] >= 0 && v[0] < 9e18)
        s->step = (int64_t)v[0];
    if (got[1])
        s->loss = v[1];
    if (got[2])
        s->lr = v[2];
    if (got[3] && v[3] >= 0)
        s->samples = v[3];
    if (got[4] && v[4] >= 0)
        s->tokens = v[4];
    if (got[5] && v[5] >= 0)
        s->samples_per_s = v[5];
    if (got[6] && v[6] >= 0)
        s->tokens_per_s = v[6];
    if (got[7] && v[7] >= 0 && v[7] < 9e18)
        s->peak_memory_bytes = (int64_t)v[7];
    return 1;
}
