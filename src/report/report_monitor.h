/* `truecost monitor`'s documents: a table of every device's sensors,
 * redrawn in place on a terminal, or one JSON object per device and
 * sample. A field the sensor does not give is n/a (null), never 0. */
#ifndef TC_REPORT_MONITOR_H
#define TC_REPORT_MONITOR_H

#include <stdint.h>
#include <stdio.h>

#include "core/tc_error.h"
#include "telemetry/telem_set.h"

/* One device's reading as monitor shows it: device i of s, its sample, and
 * the energy counted since the monitor started (valid when energy_ok). */
typedef struct tc_monitor_reading {
    const tc_telem_set *set;
    int device;
    const tc_telem_sample *x;
    double energy_j;
    int energy_ok;
} tc_monitor_reading;

/* The table's header line; when redraw_rows > 0 the cursor first moves up
 * that many lines, so that the table is drawn over the previous one. */
void tc_report_monitor_header(FILE *out, int redraw_rows);

/* One table row: power, energy, utilisation, memory, temperature, clock. */
void tc_report_monitor_row(FILE *out, const tc_monitor_reading *r);

/* One compact JSON line for the reading, stamped with wall_ns (UTC).
 * TC_OK, or TC_ERR_NOMEM when the line could not be built. */
TC_MUST_CHECK tc_err tc_report_monitor_json(FILE *out, const tc_monitor_reading *r,
                                            int64_t wall_ns);

#endif
