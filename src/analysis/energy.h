/* Energy of a measured window from a device's telemetry samples: the
 * counter's delta where the device has an energy counter (preferred: it is
 * what the hardware accumulated), else power integrated over time
 * (trapezoids between samples), and which of the two was used. */
#ifndef TC_ENERGY_H
#define TC_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "record/record_sample.h"

typedef enum tc_energy_method {
    TC_ENERGY_NONE = 0,  /* neither a counter nor enough power samples */
    TC_ENERGY_COUNTER,   /* delta of the device's energy counter */
    TC_ENERGY_INTEGRATED /* power integrated over time */
} tc_energy_method;

typedef struct tc_energy_summary {
    tc_energy_method method;
    double energy_j; /* over [from_ns, to_ns]; valid unless method is NONE. Where the
                        samples cover only part of it, that part's average power
                        times the whole window (see coverage) */
    double seconds;  /* the part of the window the samples cover */
    double coverage; /* seconds / window: below ~0.95 much of energy_j is extrapolated */
    int has_power;
    double avg_power_w; /* energy / seconds, or the mean of power samples */
    double peak_power_w;
    int has_mem;
    int64_t peak_mem_bytes;
    int has_util;
    double mean_util_pct;
    int has_temp;
    double max_temp_c;
    size_t samples; /* samples inside the window */
    /* The device's energy counter did not advance over the window (a
     * frozen or unsupported counter): never priced as 0 W; the energy is
     * integrated from power samples where there are some, else not
     * available. */
    int counter_frozen;
    /* The highest power sample is below the average the energy gives: the
     * counter and the power readings disagree (flagged, not corrected). */
    int peak_below_avg;
} tc_energy_summary;

/* "counter", "integrated power", "not available". */
const char *tc_energy_method_name(tc_energy_method m);

/* Summarises the samples (in time order) of one device over [from_ns,
 * to_ns]: energy is interpolated at the window's ends from the samples
 * around them; the other fields use the samples inside. Samples without a
 * field's valid bit are skipped for that field; a field no sample has stays
 * marked absent (has_* = 0). */
void tc_energy_summarise(const tc_telem_sample *s, size_t n, int64_t from_ns, int64_t to_ns,
                         tc_energy_summary *out);

/* Joules per output token and tokens per joule; 0 when undefined. */
double tc_energy_joules_per_token(const tc_energy_summary *e, int64_t output_tokens);
double tc_energy_tokens_per_joule(const tc_energy_summary *e, int64_t output_tokens);

#endif
