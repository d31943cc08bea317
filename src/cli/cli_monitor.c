/* truecost monitor: a live table of every device's sensors, or one JSON
 * object per sample. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "app/app_monitor.h"
#include "cli_opts.h"
#include "core/tc_time.h"
#include "report/report_monitor.h"
#include "telemetry/telem_set.h"

static int parse(int argc, char **argv, tc_app_monitor_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = "auto";
    a->interval_ms = 1000;
    const tc_cli_opt opts[] = {
        TC_OPT_S("backend", 0, &a->backend),
        TC_OPT_I("interval", 0, &a->interval_ms, 10, 3600000),
        TC_OPT_I("count", 0, &a->count, 1, 1000000000),
        TC_OPT_JSON(&a->json),
        TC_OPT_TELEM_SOURCES(&a->cfg),
        TC_OPT_END,
    };
    return tc_cli_parse("monitor", argc, argv, opts, NULL, NULL, 0, NULL) < 0 ? -1 : 0;
}

int tc_cmd_monitor(int argc, char **argv)
{
    tc_app_monitor_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("monitor");
    return tc_app_monitor(&a);
}
