/* truecost monitor: a live table of every device's sensors, or one JSON
 * object per sample. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/report_json.h"
#include "cli.h"
#include "core/tc_time.h"
#include "telemetry/telem_set.h"

void tc_cmd_monitor_help(FILE *out)
{
    fputs("Usage: truecost monitor [--backend SOURCE] [--interval MS] [--count N] [--json]\n"
          "\n"
          "Show power, energy, utilisation, memory, temperature and clocks of every GPU\n"
          "and CPU package found, refreshed in place on a terminal. Fields a sensor does\n"
          "not give are shown as n/a, never 0. Energy is counted from the start of the\n"
          "monitor (the device's counter where it has one).\n"
          "\n"
          "Options:\n"
          "  --backend NAME   auto (default: every source that finds devices), nvml,\n"
          "                   rocm, amdgpu (sysfs; skipped in auto when rocm found\n"
          "                   GPUs), rapl, or the command-line fallbacks nvidia-smi and\n"
          "                   rocm-smi (used by auto only when the libraries are absent;\n"
          "                   slow: sample every second or more)\n"
          "  --interval MS    time between samples, 10 to 3600000 (default 1000)\n"
          "  --count N        stop after N samples per device (default: until Ctrl-C)\n"
          "  --json           one JSON object per device and sample on stdout\n"
          "  --sysfs-root DIR read sysfs from DIR instead of /sys (tests, containers)\n"
          "  --nvml-lib PATH  load NVML from PATH instead of libnvidia-ml.so.1\n"
          "  --rocm-lib PATH  load ROCm SMI from PATH instead of librocm_smi64.so\n"
          "  --nvidia-smi CMD, --rocm-smi CMD   the fallback commands (default: on PATH)\n"
          "\n"
          "Exit status: 0 success; 1 usage error; 2 no sensor found.\n",
          out);
}

enum {
    OPT_BACKEND = 256,
    OPT_INTERVAL,
    OPT_COUNT,
    OPT_JSON,
};

static const struct option options[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"count", required_argument, NULL, OPT_COUNT},
    {"json", no_argument, NULL, OPT_JSON},
    TC_CLI_TELEM_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct mon_args {
    const char *backend;
    long long interval_ms, count;
    int json, help;
    tc_telem_config cfg;
} mon_args;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int parse(int argc, char **argv, mon_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = "auto";
    a->interval_ms = 1000;
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        int rc = 0;
        switch (opt) {
        case OPT_BACKEND:
            a->backend = optarg;
            break;
        case OPT_INTERVAL:
            rc = tc_cli_int("--interval", optarg, 10, 3600000, &a->interval_ms);
            break;
        case OPT_COUNT:
            rc = tc_cli_int("--count", optarg, 1, 1000000000, &a->count);
            break;
        case OPT_JSON:
            a->json = 1;
            break;
        case 'h':
            a->help = 1;
            break;
        default: {
            const char **slot = tc_cli_telem_slot(opt, &a->cfg);
            if (slot) {
                *slot = optarg;
                break;
            }
            tc_cli_error("monitor: unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
        }
        if (rc < 0)
            return -1;
    }
    if (optind < argc) {
        tc_cli_error("monitor: unexpected argument '%s'", argv[optind]);
        return -1;
    }
    return 0;
}

/* Energy since the first sample, per device. */
typedef struct mon_dev {
    uint64_t first_uj;
    int have_first;
} mon_dev;

static json_t *num_or_null(int valid, double v)
{
    return valid ? json_real(v) : json_null();
}

static void print_json(const tc_telem_set *s, int i, const tc_telem_sample *x, double energy_j,
                       int energy_ok)
{
    char when[40];
    /* device names come from drivers and vendor tools: not always UTF-8 */
    json_t *o = json_pack("{s:s, s:i, s:o, s:o, s:o}", "time",
                          tc_rfc3339_ns(tc_wall_ns(), when, sizeof when), "device", i, "name",
                          tc_json_string(tc_telem_set_device(s, i)->name), "backend",
                          tc_json_string(tc_telem_set_backend(s, i)), "energy_what",
                          tc_json_string(tc_telem_set_device(s, i)->energy_what));
    if (!o)
        return;
    uint32_t v = x->valid;
    json_object_set_new(o, "power_w", num_or_null(v & TC_TF_POWER, x->power_mw / 1000.0));
    json_object_set_new(o, "power_instant",
                        (v & TC_TF_POWER) ? json_boolean(x->power_instant) : json_null());
    json_object_set_new(o, "energy_j", num_or_null(energy_ok, energy_j));
    json_object_set_new(o, "util_pct", num_or_null(v & TC_TF_UTIL_GPU, x->util_pct));
    json_object_set_new(o, "mem_util_pct", num_or_null(v & TC_TF_UTIL_MEM, x->mem_util_pct));
    json_object_set_new(o, "mem_used_bytes",
                        (v & TC_TF_MEM_USED) ? json_integer(x->mem_used_bytes) : json_null());
    json_object_set_new(o, "mem_total_bytes",
                        (v & TC_TF_MEM_TOTAL) ? json_integer(x->mem_total_bytes) : json_null());
    json_object_set_new(o, "temp_c", num_or_null(v & TC_TF_TEMP, x->temp_mc / 1000.0));
    json_object_set_new(o, "temp_hot_c", num_or_null(v & TC_TF_TEMP_HOT, x->temp_hot_mc / 1000.0));
    json_object_set_new(o, "clock_sm_mhz", num_or_null(v & TC_TF_CLOCK_SM, x->clock_sm_mhz));
    json_object_set_new(o, "clock_mem_mhz", num_or_null(v & TC_TF_CLOCK_MEM, x->clock_mem_mhz));
    json_object_set_new(o, "power_limit_w",
                        num_or_null(v & TC_TF_POWER_LIMIT, x->power_limit_mw / 1000.0));
    const char *e = tc_telem_set_error(s, i);
    json_object_set_new(o, "error", *e ? tc_json_string(e) : json_null());
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
    if (text)
        puts(text);
    free(text);
    json_decref(o);
}

static const char *cell(char *buf, size_t len, int valid, const char *fmt, double v)
{
    if (!valid)
        return "n/a";
    snprintf(buf, len, fmt, v);
    return buf;
}

static void print_row(const tc_telem_set *s, int i, const tc_telem_sample *x, double energy_j,
                      int energy_ok)
{
    char p[32], e[32], u[16], m[16], mu[40], t[16], c[16];
    uint32_t v = x->valid;
    char pw[40];
    snprintf(pw, sizeof pw, "%s%s",
             cell(p, sizeof p, v & TC_TF_POWER, "%.1f", x->power_mw / 1000.0),
             (v & TC_TF_POWER) && !x->power_instant ? " avg" : "");
    if ((v & TC_TF_MEM_USED) && (v & TC_TF_MEM_TOTAL))
        snprintf(mu, sizeof mu, "%.1f/%.1f", x->mem_used_bytes / 1073741824.0,
                 x->mem_total_bytes / 1073741824.0);
    else
        snprintf(mu, sizeof mu, "n/a");
    printf("%-2d %-26.26s %-10s %10s %10s %6s %6s %13s %7s %7s\n", i,
           tc_telem_set_device(s, i)->name, tc_telem_set_backend(s, i), pw,
           cell(e, sizeof e, energy_ok, "%.1f", energy_j),
           cell(u, sizeof u, v & TC_TF_UTIL_GPU, "%.0f", x->util_pct),
           cell(m, sizeof m, v & TC_TF_UTIL_MEM, "%.0f", x->mem_util_pct), mu,
           cell(t, sizeof t, v & TC_TF_TEMP, "%.0f", x->temp_mc / 1000.0),
           cell(c, sizeof c, v & TC_TF_CLOCK_SM, "%.0f", x->clock_sm_mhz));
}

static void sleep_until(int64_t due)
{
    struct timespec ts = {(time_t)(due / TC_NS_PER_S), (long)(due % TC_NS_PER_S)};
    while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void loop(const mon_args *a, tc_telem_set *s)
{
    int n = tc_telem_set_count(s), tty = !a->json && isatty(STDOUT_FILENO);
    mon_dev *d = calloc((size_t)n, sizeof *d);
    if (!d)
        return;
    int64_t due = tc_mono_ns();
    for (long long k = 0; !stop && (a->count == 0 || k < a->count); k++) {
        if (tty && k > 0)
            printf("\033[%dA", n + 1); /* redraw in place */
        if (!a->json)
            printf("%-2s %-26s %-10s %10s %10s %6s %6s %13s %7s %7s\n", "#", "DEVICE", "SOURCE",
                   "POWER W", "ENERGY J", "UTIL%", "MEM%", "MEM GiB", "TEMP C", "SM MHz");
        for (int i = 0; i < n; i++) {
            tc_telem_sample x;
            if (tc_telem_set_sample(s, i, &x) != TC_OK)
                x.valid = 0; /* the row shows the set's error */
            int ok = (x.valid & TC_TF_ENERGY) != 0;
            if (ok && !d[i].have_first) {
                d[i].first_uj = x.energy_uj;
                d[i].have_first = 1;
            }
            if (ok && x.energy_uj < d[i].first_uj) /* a counter reset (driver reload) */
                d[i].first_uj = x.energy_uj;
            double j = ok ? (double)(x.energy_uj - d[i].first_uj) / 1e6 : 0;
            if (a->json)
                print_json(s, i, &x, j, ok);
            else
                print_row(s, i, &x, j, ok);
        }
        fflush(stdout);
        due += a->interval_ms * TC_NS_PER_MS;
        if (a->count == 0 || k + 1 < a->count)
            sleep_until(due);
    }
    free(d);
}

int tc_cmd_monitor(int argc, char **argv)
{
    mon_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("monitor");
    if (a.help) {
        tc_cmd_monitor_help(stdout);
        return TC_EXIT_OK;
    }
    tc_telem_set *s = NULL;
    char notes[2048], err[512];
    if (tc_telem_set_open(a.backend, &a.cfg, &s, notes, sizeof notes, err, sizeof err) != TC_OK) {
        tc_cli_error("monitor: %s", err);
        return strncmp(err, "--backend", 9) == 0 ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    if (tc_telem_set_count(s) == 0) {
        tc_cli_error("monitor: no GPU or CPU energy sensor found:");
        fputs(notes, stderr);
        tc_telem_set_close(s);
        return TC_EXIT_RUNTIME;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    loop(&a, s);
    tc_telem_set_close(s);
    return TC_EXIT_OK;
}
