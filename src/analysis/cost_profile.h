/* Cost profiles: the money inputs of one platform, read from an INI file
 * (README, "truecost cost"). A profile is either owned hardware
 * ([hardware] price, amortize_months, residual_fraction) or a rented cloud
 * GPU ([cloud] price_per_hour), plus [power], [operations] and [workload].
 *
 * Parsing is strict so that a typo can never silently drop an input: every
 * value must be a plain decimal number (no units or trailing text), unknown
 * sections and keys are errors, a key given twice is an error, and the
 * message names file, line, section, key and the expected unit. */
#ifndef TC_COST_PROFILE_H
#define TC_COST_PROFILE_H

#include <stddef.h>

#include "core/tc_error.h"

/* One numeric key: valid = 0 when the profile does not give it. */
typedef struct tc_cost_field {
    int valid;
    double value;
    int line; /* where it was given, for messages; 0 when absent */
} tc_cost_field;

/* What a power figure covers: the whole box at the wall, one GPU's board,
 * a CPU package, or the devices a run sampled. Two costs of different
 * scope are not like for like. */
typedef enum tc_power_scope {
    TC_SCOPE_NONE = 0, /* no power figure */
    TC_SCOPE_BOX,      /* the whole machine (a profile's default) */
    TC_SCOPE_BOARD,    /* GPU board power, as NVML / ROCm SMI / amdgpu report it */
    TC_SCOPE_PACKAGE,  /* CPU package power (RAPL) */
    TC_SCOPE_DEVICES   /* several sampled devices of both kinds, summed */
} tc_power_scope;

/* "not available", "whole box", "GPU board", "CPU package", "GPU board +
 * CPU package". */
const char *tc_power_scope_name(tc_power_scope s);

typedef struct tc_cost_profile {
    char name[256];    /* the file name (or label) used in messages */
    char currency[16]; /* a label only; "USD" unless the profile says */
    int is_cloud;      /* 1: [cloud] price_per_hour; 0: [hardware] */

    /* [hardware]: currency units; months; fraction 0..1 (default 0). */
    tc_cost_field hw_price, amortize_months, residual_fraction;
    /* [cloud]: currency units per hour of one device. */
    tc_cost_field cloud_price_per_hour;
    /* [power]: currency per kWh; ratio >= 1 (default 1); watts. */
    tc_cost_field price_per_kwh, pue, idle_power_w, busy_power_w;
    /* [power] scope = box | board | package: what its watts cover; 0 (not
     * given) is read as the whole box. */
    int power_scope, power_scope_line;
    /* [operations]: hours per month and currency per hour; one-time days
     * and currency per day, amortised over amortize_months. */
    tc_cost_field ops_hours_per_month, hourly_rate, adaptation_days, day_rate;
    /* [workload]: busy fraction of the month, 0 < u <= 1; optional demand
     * in output tokens per month. */
    tc_cost_field utilization, tokens_per_month;
} tc_cost_profile;

/* Parses `len` bytes of INI text; `name` (the file name) starts every
 * message. Fills *out (zeroed first) and checks that every required key is
 * present. Returns TC_OK, TC_ERR_PARSE (bad syntax, number, range, unknown
 * or duplicate key, [hardware] with [cloud], missing keys; `err` says
 * "NAME:LINE: [section] key: ..." with the expected unit), TC_ERR_INVALID
 * (NULL arguments) or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_cost_profile_parse(const char *name, const char *text, size_t len,
                                           tc_cost_profile *out, char *err, size_t errlen);

/* Reads the file at `path` and parses it as above, naming it by its path.
 * TC_ERR_IO when it cannot be read. */
TC_MUST_CHECK tc_err tc_cost_profile_load(const char *path, tc_cost_profile *out, char *err,
                                          size_t errlen);

#endif
