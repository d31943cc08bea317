/* libFuzzer target: the Prometheus exposition reader and the mapping of
 * remote exporters' metrics to devices (telemetry/telem_expo.h,
 * telem_remote.h). Seeds in corpus/expo are tests/fixtures/expo.
 *
 * Invariants: a parse either succeeds or fails with TC_ERR_PARSE /
 * TC_ERR_INVALID, no samples and a NUL-terminated reason; every sample
 * has a well-formed metric name and labels whose names are well formed;
 * the mapping stays within its bound, gives printable names and ids, and
 * leaves a field without its valid bit at 0. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telem_expo.h"
#include "telemetry/telem_remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEVS 8

static void check(int ok)
{
    if (!ok)
        __builtin_trap();
}

static void check_name(const char *s, int metric)
{
    check(s && *s && !(*s >= '0' && *s <= '9'));
    for (const char *p = s; *p; p++)
        check((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || (metric && *p == ':'));
}

static void check_printable(const char *s, size_t len)
{
    const char *end = memchr(s, '\0', len);
    check(end != NULL);
    for (const char *p = s; p < end; p++)
        check((unsigned char)*p >= 0x20 && *p != 0x7F);
}

static void check_dev(const tc_remote_dev *d)
{
    const tc_telem_sample *s = &d->s;
    check_printable(d->info.name, sizeof d->info.name);
    check_printable(d->info.id, sizeof d->info.id);
    check(s->mono_ns == 0);
    check((s->valid & TC_TF_POWER) || s->power_mw == 0);
    check((s->valid & TC_TF_ENERGY) || s->energy_uj == 0);
    check((s->valid & TC_TF_UTIL_GPU) || s->util_pct == 0);
    check((s->valid & TC_TF_MEM_USED) || s->mem_used_bytes == 0);
    check((s->valid & TC_TF_TEMP) || s->temp_mc == 0);
    check(s->power_mw >= 0 && s->util_pct >= 0 && s->mem_used_bytes >= 0 &&
          s->mem_total_bytes >= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1); /* exact size: ASan sees a read past the end */
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    tc_expo e;
    char err[256];
    memset(err, 'x', sizeof err);
    tc_err rc = tc_expo_parse(text, size, &e, err, sizeof err);
    if (rc != TC_OK) {
        check(rc == TC_ERR_PARSE || rc == TC_ERR_INVALID || rc == TC_ERR_NOMEM);
        check(e.n == 0 && memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
    }
    for (size_t i = 0; i < e.n; i++) {
        check_name(e.samples[i].name, 1);
        check(e.samples[i].n_labels >= 0 && e.samples[i].n_labels <= TC_EXPO_MAX_LABELS);
        for (int k = 0; k < e.samples[i].n_labels; k++)
            check_name(e.samples[i].labels[k].name, 0);
    }
    tc_remote_dev *devs = malloc(MAX_DEVS * sizeof *devs);
    if (devs) {
        int n = tc_remote_map(&e, devs, MAX_DEVS);
        check(n >= 0 && n <= MAX_DEVS);
        check(rc == TC_OK || n == 0);
        for (int i = 0; i < n; i++)
            check_dev(&devs[i]);
        free(devs);
    }
    tc_expo_free(&e);
    free(text);
    return 0;
}
