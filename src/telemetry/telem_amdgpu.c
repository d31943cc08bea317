/* AMD GPUs read straight from the amdgpu driver's sysfs files, for hosts
 * without ROCm SMI: <sysfs_root>/class/drm/cardN/device/ and its
 * hwmon/hwmonM/. Every file is optional; one that is missing or unreadable
 * only clears its field's valid bit. */
#include "telem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/tc_root.h"
#include "telem_sysfs.h"

typedef struct amd_card {
    char dev_dir[4096];   /* <root>/class/drm/cardN/device */
    char hwmon_dir[4096]; /* dev_dir/hwmon/hwmonM; "" when there is none */
    tc_telem_device info;
} amd_card;

typedef struct amd_state {
    amd_card *cards;
    int n;
    char error[512];
} amd_state;

static int is_amd(const char *dev_dir)
{
    char vendor[32];
    return tc_root_read(dev_dir, "vendor", vendor, sizeof vendor, NULL) == TC_OK &&
           strcasecmp(vendor, "0x1002") == 0;
}

/* Reads dir/name as text into out; leaves out untouched when it cannot. */
static void read_label(const char *dir, const char *name, char *out, size_t len)
{
    char text[256];
    if (tc_root_read(dir, name, text, sizeof text, NULL) == TC_OK && text[0])
        tc_telem_fmt(out, len, "%s", text);
}

/* "ROCm 6.1.2" from <opt_root>/opt/rocm/.info/version ("6.1.2-119"); the
 * build number after '-' is left out. */
static void rocm_runtime(const char *opt_root, char *out, size_t len)
{
    char ver[64];
    if (tc_root_read(opt_root, "opt/rocm/.info/version", ver, sizeof ver, NULL) != TC_OK || !ver[0])
        return;
    ver[strcspn(ver, "-\n")] = '\0';
    tc_telem_fmt(out, len, "ROCm %s", ver);
}

/* The first hwmon/hwmonM under dev_dir, or "" when there is none. */
static void find_hwmon(const char *dev_dir, char *out, size_t len)
{
    char dir[4200];
    int *idx = NULL, n = 0;
    out[0] = '\0';
    tc_telem_fmt(dir, sizeof dir, "%s/hwmon", dev_dir);
    if (tc_telem_scan_indexed(dir, "hwmon", &idx, &n) == TC_OK && n > 0)
        tc_telem_fmt(out, len, "%s/hwmon%d", dir, idx[0]);
    free(idx);
}

static void probe_card(amd_card *c, const char *dev_dir, int index, const tc_telem_config *cfg,
                       const char *root)
{
    memset(c, 0, sizeof *c);
    tc_telem_fmt(c->dev_dir, sizeof c->dev_dir, "%s", dev_dir);
    find_hwmon(dev_dir, c->hwmon_dir, sizeof c->hwmon_dir);
    tc_telem_device *d = &c->info;
    d->kind = TC_TELEM_GPU;
    tc_telem_fmt(d->name, sizeof d->name, "AMD GPU (card %d)", index);
    read_label(dev_dir, "product_name", d->name, sizeof d->name);
    tc_telem_fmt(d->id, sizeof d->id, "card%d", index);
    char module[4200];
    tc_telem_fmt(module, sizeof module, "%s/module/amdgpu", root);
    read_label(module, "version", d->driver, sizeof d->driver);
    rocm_runtime(cfg && cfg->opt_root ? cfg->opt_root : "/", d->runtime, sizeof d->runtime);
    /* sysfs has no energy counter: the caller integrates power over time. */
    tc_telem_fmt(d->energy_what, sizeof d->energy_what, "GPU energy integrated from power");
}

static void amd_shutdown(void *state)
{
    amd_state *st = state;
    if (!st)
        return;
    free(st->cards);
    free(st);
}

static tc_err amd_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    *state = NULL;
    const char *root = cfg && cfg->sysfs_root ? cfg->sysfs_root : "/sys";
    char base[4096];
    tc_telem_fmt(base, sizeof base, "%s/class/drm", root);
    int *idx = NULL, n = 0;
    amd_state *st = NULL;
    tc_err rc = tc_telem_scan_indexed(base, "card", &idx, &n);
    if (rc == TC_ERR_NOMEM)
        goto nomem;
    st = calloc(1, sizeof *st);
    if (!st || (n > 0 && !(st->cards = calloc((size_t)n, sizeof *st->cards))))
        goto nomem;
    for (int i = 0; i < n; i++) {
        char dev_dir[4200];
        tc_telem_fmt(dev_dir, sizeof dev_dir, "%s/card%d/device", base, idx[i]);
        if (is_amd(dev_dir))
            probe_card(&st->cards[st->n++], dev_dir, idx[i], cfg, root);
    }
    if (st->n == 0) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "no AMD GPU (vendor 0x1002) under %s", base);
        goto fail;
    }
    free(idx);
    *state = st;
    return TC_OK;
nomem:
    rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
fail:
    free(idx);
    amd_shutdown(st);
    return rc;
}

static int amd_device_count(void *state)
{
    return ((amd_state *)state)->n;
}

static void amd_device_info(void *state, int dev, tc_telem_device *out)
{
    *out = ((amd_state *)state)->cards[dev].info;
}

int tc_telem_parse_dpm(char *text)
{
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (!strchr(line, '*') || !colon)
            continue;
        char *p = colon + 1;
        while (*p == ' ')
            p++;
        long mhz = 0;
        int digits = 0;
        for (; isdigit((unsigned char)*p) && mhz < 1000000; p++, digits++)
            mhz = mhz * 10 + (*p - '0');
        if (digits == 0 || mhz >= 1000000 || strncasecmp(p, "mhz", 3) != 0)
            return -1; /* no clock runs at a terahertz: a malformed line */
        return (int)mhz;
    }
    return -1;
}

/* The current level of dir/name, a pp_dpm_* table, in MHz; -1 when unknown. */
static int dpm_current_mhz(const char *dir, const char *name)
{
    char text[1024];
    if (tc_root_read(dir, name, text, sizeof text, NULL) != TC_OK)
        return -1;
    return tc_telem_parse_dpm(text);
}

/* Reads dir/name as an integer in [lo, hi]; sets bit in *valid when it is. */
static int64_t read_field(const char *dir, const char *name, int64_t lo, int64_t hi, uint32_t bit,
                          uint32_t *valid)
{
    int64_t v;
    if (!dir[0] || tc_telem_read_i64(dir, name, &v) != TC_OK || v < lo || v > hi)
        return 0;
    *valid |= bit;
    return v;
}

static void sample_device_files(const amd_card *c, tc_telem_sample *out)
{
    const char *d = c->dev_dir;
    out->util_pct = (int)read_field(d, "gpu_busy_percent", 0, 100, TC_TF_UTIL_GPU, &out->valid);
    out->mem_util_pct = (int)read_field(d, "mem_busy_percent", 0, 100, TC_TF_UTIL_MEM, &out->valid);
    out->mem_used_bytes =
        read_field(d, "mem_info_vram_used", 0, INT64_MAX, TC_TF_MEM_USED, &out->valid);
    out->mem_total_bytes =
        read_field(d, "mem_info_vram_total", 1, INT64_MAX, TC_TF_MEM_TOTAL, &out->valid);
    int sclk = dpm_current_mhz(d, "pp_dpm_sclk"), mclk = dpm_current_mhz(d, "pp_dpm_mclk");
    if (sclk >= 0) {
        out->clock_sm_mhz = sclk;
        out->valid |= TC_TF_CLOCK_SM;
    }
    if (mclk >= 0) {
        out->clock_mem_mhz = mclk;
        out->valid |= TC_TF_CLOCK_MEM;
    }
}

/* hwmon: power1_input is instantaneous (newer kernels) and preferred over
 * power1_average; both are µW. temp1 is the edge sensor, temp2 the
 * junction (hotspot); both m°C. */
static void sample_hwmon(const amd_card *c, tc_telem_sample *out)
{
    const char *h = c->hwmon_dir;
    const int64_t max_uw = INT64_MAX / 2;
    uint32_t got = 0;
    int64_t uw = read_field(h, "power1_input", 0, max_uw, TC_TF_POWER, &got);
    out->power_instant = got != 0;
    if (!got)
        uw = read_field(h, "power1_average", 0, max_uw, TC_TF_POWER, &got);
    if (got) {
        out->power_mw = uw / 1000;
        out->valid |= TC_TF_POWER;
    }
    got = 0;
    int64_t cap = read_field(h, "power1_cap", 1, max_uw, TC_TF_POWER_LIMIT, &got);
    if (got) {
        out->power_limit_mw = cap / 1000;
        out->valid |= TC_TF_POWER_LIMIT;
    }
    const int64_t tmin = -273150, tmax = 1000000;
    out->temp_mc = (int)read_field(h, "temp1_input", tmin, tmax, TC_TF_TEMP, &out->valid);
    out->temp_hot_mc = (int)read_field(h, "temp2_input", tmin, tmax, TC_TF_TEMP_HOT, &out->valid);
}

static tc_err amd_sample(void *state, int dev, tc_telem_sample *out)
{
    amd_state *st = state;
    const amd_card *c = &st->cards[dev];
    memset(out, 0, sizeof *out);
    out->mono_ns = tc_telem_now_ns();
    struct stat sb;
    if (stat(c->dev_dir, &sb) != 0) {
        tc_telem_fmt(st->error, sizeof st->error, "%s: device gone (%s missing)", c->info.id,
                     c->dev_dir);
        return TC_ERR_IO;
    }
    sample_device_files(c, out);
    sample_hwmon(c, out);
    /* No TC_TF_ENERGY: amdgpu sysfs has no energy counter. */
    return TC_OK;
}

static const char *amd_last_error(void *state)
{
    return state ? ((amd_state *)state)->error : "";
}

const tc_telem_backend tc_telem_amdgpu = {
    .name = "amdgpu",
    .init = amd_init,
    .device_count = amd_device_count,
    .device_info = amd_device_info,
    .sample = amd_sample,
    .shutdown = amd_shutdown,
    .last_error = amd_last_error,
};
