/* The energy part of a run's summary (table and JSON), and the export of
 * its raw telemetry samples. Fields a sensor did not give are "n/a" /
 * null, never 0; every energy figure says what it measures ("GPU board
 * energy", "CPU package energy") and how (counter or integrated power). */
#ifndef TC_REPORT_ENERGY_H
#define TC_REPORT_ENERGY_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/run_energy.h"

/* Prints the energy lines of the summary table. */
void tc_report_energy_table(FILE *out, const tc_run_energy *e);

/* The "energy" member of the run document: null when the run has no
 * telemetry. New reference; NULL only when out of memory. */
json_t *tc_report_energy_json(const tc_run_energy *e);

/* Writes the samples as CSV (a header row) or JSON (an array); t_s counts
 * from the first sample. json != 0 selects JSON. Columns: device, name,
 * t_s, power_w, energy_j, util_pct, mem_util_pct, mem_used_bytes,
 * mem_total_bytes, temp_c, temp_hot_c, clock_sm_mhz, clock_mem_mhz,
 * power_limit_w, simulated (the run's flag, on every row). */
TC_MUST_CHECK tc_err tc_report_export_samples(FILE *out, int json, int simulated,
                                              const tc_run_device *devs, int n_devs,
                                              const tc_run_sample *samples, size_t n, char *err,
                                              size_t errlen);

#endif
