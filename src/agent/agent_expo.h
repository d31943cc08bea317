/* The agent's /metrics document: Prometheus text exposition format 0.0.4,
 * base units in the names, counters ending in _total, one HELP and TYPE
 * per family. A field a device does not give is left out, never 0. */
#ifndef TC_AGENT_EXPO_H
#define TC_AGENT_EXPO_H

#include "core/tc_buf.h"
#include "record/record_sample.h"

/* One device's latest reading. */
typedef struct tc_agent_reading {
    const tc_telem_device *dev;
    const char *backend;      /* the telemetry source: nvml, rocm, amdgpu, rapl, ... */
    const tc_telem_sample *s; /* valid bits say what is there */
} tc_agent_reading;

/* Appends the exposition of n readings (GPUs labelled gpu (their index
 * among the GPUs), uuid (the device's id), vendor and name; CPU packages
 * package and name) and truecost_build_info to b. Check tc_buf_status. */
void tc_agent_expo_write(tc_buf *b, const tc_agent_reading *r, int n);

/* "nvidia", "amd" or "cpu" for a telemetry backend's name. */
const char *tc_agent_vendor(const char *backend);

#endif
