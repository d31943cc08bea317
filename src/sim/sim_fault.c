#include "sim_fault.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_rng.h"

static const struct {
    const char *name;
    tc_sim_fault_kind kind;
    int needs_arg; /* 1: RATE:MS, 2: N only */
} kinds[] = {
    {"http500", TC_FAULT_HTTP500, 0},
    {"http503", TC_FAULT_HTTP503, 0},
    {"disconnect", TC_FAULT_DISCONNECT, 0},
    {"malformed", TC_FAULT_MALFORMED, 0},
    {"stall", TC_FAULT_STALL, 1},
    {"slow-accept", TC_FAULT_SLOW_ACCEPT, 1},
    {"crash-after", TC_FAULT_CRASH_AFTER, 2},
};

#define FORMS                                                                                      \
    "http500:RATE, http503:RATE, disconnect:RATE, malformed:RATE, stall:RATE:MS, "                 \
    "slow-accept:RATE:MS, crash-after:N"

const char *tc_sim_fault_name(tc_sim_fault_kind kind)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].kind == kind)
            return kinds[i].name;
    return "none";
}

static int fail(char *err, size_t errlen, const char *spec, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "--fault '%s': %s (forms: " FORMS ")", spec, why);
    return -1;
}

/* Parses a whole decimal field ending at ':' or NUL; returns the end.
 * strtod also reads "nan" and "inf": neither is a number here. */
static const char *parse_number(const char *s, double *out)
{
    if (*s == '\0' || *s == ':' || *s == ' ' || *s == '+' || *s == '-')
        return NULL;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || (*end != '\0' && *end != ':') || !isfinite(v))
        return NULL;
    *out = v;
    return end;
}

int tc_sim_fault_parse(tc_sim_fault_plan *plan, const char *spec, char *err, size_t errlen)
{
    const char *colon = strchr(spec, ':');
    if (!colon)
        return fail(err, errlen, spec, "expected KIND:RATE");
    size_t klen = (size_t)(colon - spec);
    int k = -1;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].name) == klen && memcmp(kinds[i].name, spec, klen) == 0)
            k = (int)i;
    if (k < 0)
        return fail(err, errlen, spec, "unknown fault kind");

    double first, second = 0;
    const char *end = parse_number(colon + 1, &first);
    if (!end)
        return fail(err, errlen, spec, "expected a number after the kind");
    if (kinds[k].needs_arg == 1) {
        if (*end != ':' || !(end = parse_number(end + 1, &second)))
            return fail(err, errlen, spec, "expected RATE:MS");
        /* written so that NaN fails too */
        if (!(second >= 0 && second <= 3600e3))
            return fail(err, errlen, spec, "MS must be between 0 and 3600000");
    }
    if (*end != '\0')
        return fail(err, errlen, spec, "unexpected text after the last number");

    if (kinds[k].kind == TC_FAULT_CRASH_AFTER) {
        if (!(first >= 1 && first <= 1e12) || first != (double)(int64_t)first)
            return fail(err, errlen, spec, "N must be a whole number of requests, at least 1");
        plan->crash_after = (int64_t)first;
        return 0;
    }
    if (!(first >= 0 && first <= 1))
        return fail(err, errlen, spec, "RATE must be a probability between 0 and 1");
    if (plan->count >= TC_SIM_MAX_FAULTS)
        return fail(err, errlen, spec, "too many --fault options (at most 16)");
    tc_sim_fault_rule *r = &plan->rules[plan->count++];
    r->kind = kinds[k].kind;
    r->rate = first;
    r->arg = (int64_t)second;
    return 0;
}

tc_sim_fault_decision tc_sim_fault_decide(const tc_sim_fault_plan *plan, uint64_t seed,
                                          uint64_t request_no)
{
    tc_sim_fault_decision d = {TC_FAULT_NONE, 0, 0};
    for (int i = 0; i < plan->count; i++) {
        const tc_sim_fault_rule *r = &plan->rules[i];
        /* One independent draw per rule, so adding a rule does not reshuffle
         * the decisions of the others. */
        double u = tc_unit_from_hash(tc_hash3(seed, request_no, (uint64_t)i + 1));
        if (u >= r->rate)
            continue;
        if (r->kind == TC_FAULT_SLOW_ACCEPT) {
            d.slow_accept_ms = r->arg;
        } else if (d.kind == TC_FAULT_NONE) {
            d.kind = r->kind;
            d.stall_ms = r->kind == TC_FAULT_STALL ? r->arg : 0;
        }
    }
    return d;
}

int tc_sim_fault_position(int tokens)
{
    if (tokens <= 1)
        return 0;
    return tokens / 2;
}
