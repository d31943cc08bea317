/* truecost monitor's work: its options, and the result printed. */
#ifndef TC_APP_MONITOR_H
#define TC_APP_MONITOR_H

#include "core/tc_time.h"
#include "telemetry/telem_set.h"

typedef struct tc_app_monitor_args {
    const char *backend;
    long long interval_ms, count;
    int json;
    tc_telem_config cfg;
} tc_app_monitor_args;

/* The samples shown until the count or a signal ends them; the exit status. */
int tc_app_monitor(tc_app_monitor_args *a);

#endif
