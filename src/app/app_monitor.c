/* truecost monitor's work: the sensors sampled and shown until stopped. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_monitor.h"
#include "core/tc_time.h"
#include "report/report_monitor.h"
#include "telemetry/telem_set.h"

static volatile sig_atomic_t stop;

/* Energy since the first sample, per device. */
typedef struct mon_dev {
    uint64_t first_uj;
    int have_first;
} mon_dev;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void sleep_until(int64_t due)
{
    struct timespec ts = {(time_t)(due / TC_NS_PER_S), (long)(due % TC_NS_PER_S)};
    while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Samples device i and prints it as a row or a JSON line. */
static void show(const tc_app_monitor_args *a, tc_telem_set *s, int i, mon_dev *d)
{
    tc_telem_sample x;
    if (tc_telem_set_sample(s, i, &x) != TC_OK)
        x.valid = 0; /* the row shows the set's error */
    int ok = (x.valid & TC_TF_ENERGY) != 0;
    if (ok && !d->have_first) {
        d->first_uj = x.energy_uj;
        d->have_first = 1;
    }
    if (ok && x.energy_uj < d->first_uj) /* a counter reset (driver reload) */
        d->first_uj = x.energy_uj;
    tc_monitor_reading r = {s, i, &x, ok ? (double)(x.energy_uj - d->first_uj) / 1e6 : 0, ok};
    if (!a->json)
        tc_report_monitor_row(stdout, &r);
    else if (tc_report_monitor_json(stdout, &r, tc_wall_ns()) != TC_OK)
        tc_app_error("monitor: out of memory building the JSON document");
}

static void loop(const tc_app_monitor_args *a, tc_telem_set *s)
{
    int n = tc_telem_set_count(s), tty = !a->json && isatty(STDOUT_FILENO);
    mon_dev *d = calloc((size_t)n, sizeof *d);
    if (!d)
        return;
    int64_t due = tc_mono_ns();
    for (long long k = 0; !stop && (a->count == 0 || k < a->count); k++) {
        if (!a->json)
            tc_report_monitor_header(stdout, tty && k > 0 ? n + 1 : 0); /* redraw in place */
        for (int i = 0; i < n; i++)
            show(a, s, i, &d[i]);
        fflush(stdout);
        due += a->interval_ms * TC_NS_PER_MS;
        if (a->count == 0 || k + 1 < a->count)
            sleep_until(due);
    }
    free(d);
}

int tc_app_monitor(tc_app_monitor_args *a)
{
    tc_telem_set *s = NULL;
    char notes[2048], err[512];
    if (tc_telem_set_open(a->backend, &a->cfg, &s, notes, sizeof notes, err, sizeof err) != TC_OK) {
        tc_app_error("monitor: %s", err);
        return strncmp(err, "--backend", 9) == 0 ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    if (tc_telem_set_count(s) == 0) {
        tc_app_error("monitor: no GPU or CPU energy sensor found:");
        fputs(notes, stderr);
        tc_telem_set_close(s);
        return TC_EXIT_RUNTIME;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    loop(a, s);
    tc_telem_set_close(s);
    return TC_EXIT_OK;
}
