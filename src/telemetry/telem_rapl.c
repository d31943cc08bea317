/* CPU package energy from the powercap RAPL zones:
 * <sysfs_root>/class/powercap/intel-rapl:N/{name,energy_uj,max_energy_range_uj}.
 * Only top-level zones named "package-*" are devices; their sub-zones
 * (intel-rapl:N:M: core, uncore, dram) are already inside the package and
 * psys overlaps the packages, so neither is counted. */
#include "telem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_root.h"
#include "telem_sysfs.h"

#define RAPL_ERR_LEN 512

typedef struct rapl_zone {
    char dir[4096];
    tc_telem_device info;
    int readable;          /* energy_uj could be read at init */
    int has_max;           /* max_energy_range_uj known: wraps can be folded */
    uint64_t max_range_uj; /* the raw counter wraps after this value */
    uint64_t last_raw;     /* raw energy_uj at the previous read */
    uint64_t total_uj;     /* our own cumulative count since init */
    int64_t last_ns;       /* time of the previous sample; 0: none yet */
} rapl_zone;

typedef struct rapl_state {
    rapl_zone *zones;
    int n;
    char root[4096]; /* sysfs root, for the chmod hint */
    char error[RAPL_ERR_LEN];
} rapl_state;

/* Why energy_uj cannot be read, in the words a user can act on. */
static void unreadable_reason(const char *root, const char *path, int eno, char *out, size_t len)
{
    if (eno == EACCES || eno == EPERM)
        tc_telem_fmt(out, len,
                     "not available: RAPL energy_uj is readable by root only since Linux 5.10; "
                     "grant read access with e.g. `sudo chmod a+r %s/class/powercap/intel-rapl:*/"
                     "energy_uj`",
                     root);
    else
        tc_telem_fmt(out, len, "not available: cannot read %s: %s", path, strerror(eno));
}

/* Reads the raw counter of z; on failure writes the reason to why. */
static int read_raw(const rapl_zone *z, const char *root, uint64_t *raw, char *why, size_t len)
{
    char path[4200], text[64];
    int eno = 0;
    tc_telem_fmt(path, sizeof path, "%s/energy_uj", z->dir);
    tc_err e = tc_root_read(NULL, path, text, sizeof text, &eno);
    if (e == TC_OK && tc_telem_parse_u64(text, raw) == TC_OK)
        return 0;
    if (e == TC_ERR_IO)
        unreadable_reason(root, path, eno, why, len);
    else
        tc_telem_fmt(why, len, "not available: %s is not a counter", path);
    return -1;
}

/* Fills z from zone directory dir; returns 0 when it is a package zone. */
static int probe_zone(rapl_zone *z, const char *dir, int index)
{
    char name[64];
    if (tc_root_read(dir, "name", name, sizeof name, NULL) != TC_OK ||
        strncmp(name, "package-", 8) != 0)
        return -1;
    memset(z, 0, sizeof *z);
    tc_telem_fmt(z->dir, sizeof z->dir, "%s", dir);
    z->info.kind = TC_TELEM_CPU;
    tc_telem_fmt(z->info.name, sizeof z->info.name, "%s", name);
    tc_telem_fmt(z->info.id, sizeof z->info.id, "intel-rapl:%d", index);
    tc_telem_fmt(z->info.energy_what, sizeof z->info.energy_what, "CPU package energy");
    int64_t max;
    if (tc_telem_read_i64(dir, "max_energy_range_uj", &max) == TC_OK && max > 0) {
        z->has_max = 1;
        z->max_range_uj = (uint64_t)max;
    }
    return 0;
}

/* Adds the package zones among intel-rapl:<idx[i]> to st. */
static tc_err collect_zones(rapl_state *st, const char *base, const int *idx, int n)
{
    st->zones = calloc((size_t)n, sizeof *st->zones);
    if (!st->zones)
        return TC_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        char dir[4096];
        tc_telem_fmt(dir, sizeof dir, "%s/intel-rapl:%d", base, idx[i]);
        if (probe_zone(&st->zones[st->n], dir, idx[i]) == 0)
            st->n++;
    }
    return TC_OK;
}

/* Takes each package's baseline reading; returns how many were readable
 * and leaves the first reason for an unreadable one in st->error. */
static int take_baselines(rapl_state *st)
{
    int readable = 0;
    for (int i = 0; i < st->n; i++) {
        rapl_zone *z = &st->zones[i];
        char why[RAPL_ERR_LEN];
        if (read_raw(z, st->root, &z->last_raw, why, sizeof why) == 0) {
            z->readable = 1;
            readable++;
        } else if (!st->error[0]) {
            tc_telem_fmt(st->error, sizeof st->error, "%s", why);
        }
    }
    return readable;
}

static void rapl_shutdown(void *state)
{
    rapl_state *st = state;
    if (!st)
        return;
    free(st->zones);
    free(st);
}

static tc_err rapl_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    *state = NULL;
    rapl_state *st = NULL;
    const char *root = cfg && cfg->sysfs_root ? cfg->sysfs_root : "/sys";
    char base[4096];
    tc_telem_fmt(base, sizeof base, "%s/class/powercap", root);
    int *idx = NULL, n = 0;
    tc_err rc = tc_telem_scan_indexed(base, "intel-rapl:", &idx, &n);
    if (rc == TC_ERR_NOTFOUND || (rc == TC_OK && n == 0)) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "no RAPL powercap zones under %s", base);
        goto done;
    }
    st = rc == TC_OK ? calloc(1, sizeof *st) : NULL;
    if (!st || collect_zones(st, base, idx, n) != TC_OK) {
        rapl_shutdown(st);
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (st->n == 0) {
        rapl_shutdown(st);
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "no RAPL package-* zones under %s", base);
        goto done;
    }
    tc_telem_fmt(st->root, sizeof st->root, "%s", root);
    if (take_baselines(st) == 0) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s", st->error);
        rapl_shutdown(st);
        goto done;
    }
    *state = st;
done:
    free(idx);
    return rc;
}

static int rapl_device_count(void *state)
{
    return ((rapl_state *)state)->n;
}

static void rapl_device_info(void *state, int dev, tc_telem_device *out)
{
    *out = ((rapl_state *)state)->zones[dev].info;
}

/* Energy since the previous read of a counter that wraps after max:
 * a smaller new value means it wrapped once (sampling is far faster than
 * a wrap, which takes minutes even at hundreds of watts). */
static int fold_delta(const rapl_zone *z, uint64_t raw, uint64_t *delta)
{
    if (raw >= z->last_raw) {
        *delta = raw - z->last_raw;
        return 0;
    }
    if (!z->has_max || z->last_raw > z->max_range_uj)
        return -1;
    *delta = raw + (z->max_range_uj - z->last_raw);
    return 0;
}

/* RAPL gives no power reading: power is the energy delta over the time
 * since this device's previous sample, so it is valid only from the
 * second sample on (the first has no previous sample time). */
static void derive_power(rapl_zone *z, uint64_t delta, int64_t now, tc_telem_sample *out)
{
    if (z->last_ns > 0 && now > z->last_ns) {
        out->power_mw = llround((double)delta * 1e6 / (double)(now - z->last_ns));
        out->power_instant = 0;
        out->valid |= TC_TF_POWER;
    }
    z->last_ns = now;
}

static tc_err rapl_sample(void *state, int dev, tc_telem_sample *out)
{
    rapl_state *st = state;
    rapl_zone *z = &st->zones[dev];
    memset(out, 0, sizeof *out);
    out->mono_ns = tc_telem_now_ns();
    if (!z->readable)
        return TC_OK;
    uint64_t raw, delta;
    char why[RAPL_ERR_LEN];
    if (read_raw(z, st->root, &raw, why, sizeof why) != 0) {
        tc_telem_fmt(st->error, sizeof st->error, "%s", why);
        return TC_ERR_IO;
    }
    if (fold_delta(z, raw, &delta) != 0) {
        /* Without the wrap point the lost energy is unknown: start over
         * from this reading and say so rather than guess. */
        tc_telem_fmt(st->error, sizeof st->error,
                     "%s: energy counter went back with no max_energy_range_uj; "
                     "one interval not counted",
                     z->info.id);
        z->last_raw = raw;
        z->last_ns = 0;
        return TC_OK;
    }
    z->last_raw = raw;
    z->total_uj += delta;
    out->energy_uj = z->total_uj;
    out->valid |= TC_TF_ENERGY;
    derive_power(z, delta, out->mono_ns, out);
    return TC_OK;
}

static const char *rapl_last_error(void *state)
{
    return state ? ((rapl_state *)state)->error : "";
}

const tc_telem_backend tc_telem_rapl = {
    .name = "rapl",
    .init = rapl_init,
    .device_count = rapl_device_count,
    .device_info = rapl_device_info,
    .sample = rapl_sample,
    .shutdown = rapl_shutdown,
    .last_error = rapl_last_error,
};
