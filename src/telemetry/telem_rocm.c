/* ROCm SMI backend. The prototypes and constants below are written from
 * AMD's public rocm_smi.h rather than included, so no SDK is needed to
 * build; every function returns an rsmi_status_t (a C enum, so an int). */
#include "telem_rocm.h"

#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tc_root.h"
#include "core/tc_time.h"
#include "telem_sysfs.h"

/* rsmi_status_t values this file acts on. */
enum {
    RSMI_STATUS_SUCCESS = 0,
    RSMI_STATUS_NOT_SUPPORTED = 2,
    RSMI_STATUS_PERMISSION = 4,
    RSMI_STATUS_NOT_YET_IMPLEMENTED = 9
};

enum { RSMI_MEM_TYPE_VRAM = 0 };
enum { RSMI_TEMP_CURRENT = 0, RSMI_TEMP_TYPE_EDGE = 0, RSMI_TEMP_TYPE_JUNCTION = 1 };
enum { RSMI_SW_COMP_DRIVER = 0 }; /* RSMI_SW_COMP_FIRST */
enum { RSMI_CURRENT_POWER = 1 };  /* RSMI_POWER_TYPE; 0 is the average */

typedef int rsmi_ret;

/* The entry points; the optional ones may be NULL. */
typedef struct {
    rsmi_ret (*init)(uint64_t flags);
    rsmi_ret (*shut_down)(void);
    rsmi_ret (*status_string)(rsmi_ret, const char **);
    rsmi_ret (*count)(uint32_t *);
    rsmi_ret (*name)(uint32_t, char *, size_t);
    rsmi_ret (*pci_id)(uint32_t, uint64_t *);
    rsmi_ret (*version_str)(int component, char *, uint32_t);
    rsmi_ret (*energy)(uint32_t, uint64_t *count, float *resolution_uj, uint64_t *timestamp_ns);
    rsmi_ret (*power_ave)(uint32_t, uint32_t sensor, uint64_t *uw);
    rsmi_ret (*power)(uint32_t, uint64_t *uw, int *type); /* ROCm 6: average or current */
    rsmi_ret (*power_cap)(uint32_t, uint32_t sensor, uint64_t *uw);
    rsmi_ret (*mem_usage)(uint32_t, int type, uint64_t *bytes);
    rsmi_ret (*mem_total)(uint32_t, int type, uint64_t *bytes);
    rsmi_ret (*busy)(uint32_t, uint32_t *pct);
    rsmi_ret (*mem_busy)(uint32_t, uint32_t *pct);
    rsmi_ret (*temp)(uint32_t, uint32_t sensor, int metric, int64_t *milli_c);
} rsmi_api;

typedef struct {
    tc_telem_device info;
    int no_power_ave; /* rsmi_dev_power_ave_get said NOT_SUPPORTED once */
    int have_energy;  /* last_uj holds a reading */
    uint64_t last_uj; /* the counter's last value, in µJ */
    uint64_t base_uj; /* energy counted before the counter's last reset */
} rsmi_gpu;

typedef struct {
    void *dl;
    rsmi_api f;
    int initialised; /* rsmi_init succeeded: rsmi_shut_down is owed */
    int ngpu;
    rsmi_gpu *gpu;
    char last_error[512];
} rsmi_state;

#define LIB_DEFAULT "librocm_smi64.so"

#define NO_LIB_HINT "ROCm SMI is not installed (or use the amdgpu sysfs backend)"

#define INIT_HINT                                                                                  \
    "is /dev/kfd present (is the amdgpu driver loaded)? is the user in the render and video "      \
    "groups: sudo usermod -a -G render,video $USER, then log in again"

#define SYM(dst, name) ((dst) = (__typeof__(dst))dlsym(dl, name))

static tc_err load_api(void *dl, rsmi_api *f, char *err, size_t errlen)
{
    /* Required: without these there is nothing to read. */
    const char *missing = NULL;
    if (!SYM(f->init, "rsmi_init"))
        missing = "rsmi_init";
    else if (!SYM(f->shut_down, "rsmi_shut_down"))
        missing = "rsmi_shut_down";
    else if (!SYM(f->status_string, "rsmi_status_string"))
        missing = "rsmi_status_string";
    else if (!SYM(f->count, "rsmi_num_monitor_devices"))
        missing = "rsmi_num_monitor_devices";
    if (missing)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "librocm_smi64: symbol %s not found (not ROCm SMI, or too old?)", missing);

    /* Optional: each one missing costs only its field. */
    SYM(f->name, "rsmi_dev_name_get");
    SYM(f->pci_id, "rsmi_dev_pci_id_get");
    SYM(f->version_str, "rsmi_version_str_get");
    SYM(f->energy, "rsmi_dev_energy_count_get");
    SYM(f->power_ave, "rsmi_dev_power_ave_get");
    SYM(f->power, "rsmi_dev_power_get");
    SYM(f->power_cap, "rsmi_dev_power_cap_get");
    SYM(f->mem_usage, "rsmi_dev_memory_usage_get");
    SYM(f->mem_total, "rsmi_dev_memory_total_get");
    SYM(f->busy, "rsmi_dev_busy_percent_get");
    SYM(f->mem_busy, "rsmi_dev_memory_busy_percent_get");
    SYM(f->temp, "rsmi_dev_temp_metric_get");
    return TC_OK;
}

/* The library's text for r, or its number when it has none. The buffer
 * is only used for the number. */
static const char *status_text(const rsmi_state *st, rsmi_ret r, char *buf, size_t len)
{
    const char *s = NULL;
    if (st->f.status_string(r, &s) == RSMI_STATUS_SUCCESS && s && *s)
        return s;
    snprintf(buf, len, "ROCm SMI status %d", r);
    return buf;
}

/* "ROCm 6.1.2" from <opt_root>/opt/rocm/.info/version ("6.1.2-119"); the
 * build number after '-' is left out. */
static void rocm_runtime(const char *opt_root, char *out, size_t len)
{
    char ver[64];
    if (tc_root_read(opt_root, "opt/rocm/.info/version", ver, sizeof ver, NULL) != TC_OK)
        return;
    ver[strcspn(ver, "-\n")] = '\0';
    if (ver[0])
        tc_telem_fmt(out, len, "ROCm %s", ver);
}

static void describe_gpu(rsmi_state *st, uint32_t i, const char *opt_root)
{
    const rsmi_api *f = &st->f;
    tc_telem_device *d = &st->gpu[i].info;
    d->kind = TC_TELEM_GPU;
    tc_telem_fmt(d->energy_what, sizeof d->energy_what, "GPU energy counter");
    char buf[128] = "";
    if (f->name && f->name(i, buf, sizeof buf) == RSMI_STATUS_SUCCESS && buf[0]) {
        buf[sizeof buf - 1] = '\0';
        tc_telem_fmt(d->name, sizeof d->name, "%s", buf);
    } else {
        tc_telem_fmt(d->name, sizeof d->name, "AMD GPU %u", (unsigned)i);
    }
    /* BDF id: domain in bits 63..32, bus 15..8, device 7..3, function 2..0. */
    uint64_t bdf = 0;
    if (f->pci_id && f->pci_id(i, &bdf) == RSMI_STATUS_SUCCESS)
        tc_telem_fmt(d->id, sizeof d->id, "%04x:%02x:%02x.%x", (unsigned)(bdf >> 32),
                     (unsigned)(bdf >> 8) & 0xffu, (unsigned)(bdf >> 3) & 0x1fu,
                     (unsigned)bdf & 0x7u);
    else
        tc_telem_fmt(d->id, sizeof d->id, "rocm:%u", (unsigned)i);
    /* The driver and ROCm versions are per host; every GPU carries them so
     * a device description stands on its own. */
    buf[0] = '\0';
    if (f->version_str && f->version_str(RSMI_SW_COMP_DRIVER, buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        tc_telem_fmt(d->driver, sizeof d->driver, "%s", buf);
    }
    rocm_runtime(opt_root, d->runtime, sizeof d->runtime);
}

static tc_err open_gpus(rsmi_state *st, const char *opt_root, char *err, size_t errlen)
{
    char num[40];
    uint32_t n = 0;
    rsmi_ret r = st->f.count(&n);
    if (r != RSMI_STATUS_SUCCESS)
        return tc_fail(err, errlen, TC_ERR_IO, "librocm_smi64: rsmi_num_monitor_devices: %s",
                       status_text(st, r, num, sizeof num));
    if (n == 0)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "librocm_smi64: ROCm SMI sees no GPU");
    st->gpu = calloc(n, sizeof *st->gpu);
    if (!st->gpu)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "librocm_smi64: out of memory");
    st->ngpu = (int)n;
    for (uint32_t i = 0; i < n; i++)
        describe_gpu(st, i, opt_root);
    return TC_OK;
}

static void *open_library(const tc_telem_config *cfg)
{
    if (cfg && cfg->rocm_lib)
        return dlopen(cfg->rocm_lib, RTLD_NOW | RTLD_LOCAL);
    void *dl = dlopen(LIB_DEFAULT, RTLD_NOW | RTLD_LOCAL);
    if (!dl)
        dl = dlopen(LIB_DEFAULT ".1", RTLD_NOW | RTLD_LOCAL);
    char path[4200];
    if (!dl && tc_root_join(path, sizeof path, cfg && cfg->opt_root ? cfg->opt_root : "/",
                            "opt/rocm/lib/" LIB_DEFAULT) == TC_OK)
        dl = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* ROCm installed outside the loader's path */
    return dl;
}

static void rocm_shutdown(void *state)
{
    rsmi_state *st = state;
    if (!st)
        return;
    if (st->initialised)
        st->f.shut_down();
    if (st->dl)
        dlclose(st->dl);
    free(st->gpu);
    free(st);
}

static tc_err rocm_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    *state = NULL;
    rsmi_state *st = calloc(1, sizeof *st);
    if (!st)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "librocm_smi64: out of memory");
    tc_err rc;
    st->dl = open_library(cfg);
    struct stat sb;
    if (!st->dl && cfg && cfg->rocm_lib &&
        stat(cfg->rocm_lib, &sb) == 0) { /* there, but no library */
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND,
                     "%s is not a library that loads (%s): give --rocm-lib the path of "
                     "librocm_smi64.so",
                     cfg->rocm_lib, dlerror());
        goto fail;
    }
    if (!st->dl) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s not found: %s",
                     cfg && cfg->rocm_lib ? cfg->rocm_lib : LIB_DEFAULT, NO_LIB_HINT);
        goto fail;
    }
    if ((rc = load_api(st->dl, &st->f, err, errlen)) != TC_OK)
        goto fail;
    rsmi_ret r = st->f.init(0);
    if (r != RSMI_STATUS_SUCCESS) {
        char num[40];
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "librocm_smi64: rsmi_init: %s (%s)",
                     status_text(st, r, num, sizeof num), INIT_HINT);
        goto fail;
    }
    st->initialised = 1;
    if ((rc = open_gpus(st, cfg && cfg->opt_root ? cfg->opt_root : "/", err, errlen)) != TC_OK)
        goto fail;
    *state = st;
    return TC_OK;
fail:
    rocm_shutdown(st);
    return rc;
}

static int rocm_device_count(void *state)
{
    return state ? ((rsmi_state *)state)->ngpu : 0;
}

static void rocm_device_info(void *state, int dev, tc_telem_device *out)
{
    rsmi_state *st = state;
    if (st && dev >= 0 && dev < st->ngpu)
        *out = st->gpu[dev].info;
    else
        memset(out, 0, sizeof *out);
}

/* Whether a read worked. NOT_SUPPORTED (and NOT_YET_IMPLEMENTED) only cost
 * the field; a permission error or anything else is also noted. */
static int read_ok(rsmi_state *st, const rsmi_gpu *g, rsmi_ret r, const char *call)
{
    char num[40];
    if (r == RSMI_STATUS_SUCCESS)
        return 1;
    if (r == RSMI_STATUS_PERMISSION)
        snprintf(st->last_error, sizeof st->last_error,
                 "%s %s: %s: %s (add the user to the render and video groups: sudo usermod -a "
                 "-G render,video $USER)",
                 g->info.name, g->info.id, call, status_text(st, r, num, sizeof num));
    else if (r != RSMI_STATUS_NOT_SUPPORTED && r != RSMI_STATUS_NOT_YET_IMPLEMENTED)
        snprintf(st->last_error, sizeof st->last_error, "%s %s: %s: %s", g->info.name, g->info.id,
                 call, status_text(st, r, num, sizeof num));
    return 0;
}

/* The averaged power (rsmi_dev_power_ave_get, sensor 0); where the GPU has
 * none (MI300 reports only the socket's current power), rsmi_dev_power_get,
 * which says which of the two it gave. */
static void read_power(rsmi_state *st, uint32_t i, rsmi_gpu *g, tc_telem_sample *out)
{
    uint64_t uw = 0;
    if (st->f.power_ave && !g->no_power_ave) {
        rsmi_ret r = st->f.power_ave(i, 0, &uw);
        if (r == RSMI_STATUS_NOT_SUPPORTED)
            g->no_power_ave = 1;
        if (read_ok(st, g, r, "rsmi_dev_power_ave_get")) {
            out->power_mw = (int64_t)((uw + 500) / 1000);
            out->power_instant = 0;
            out->valid |= TC_TF_POWER;
            return;
        }
    }
    int type = 0;
    if (st->f.power && read_ok(st, g, st->f.power(i, &uw, &type), "rsmi_dev_power_get")) {
        out->power_mw = (int64_t)((uw + 500) / 1000);
        out->power_instant = type == RSMI_CURRENT_POWER;
        out->valid |= TC_TF_POWER;
    }
}

static void read_power_cap(rsmi_state *st, uint32_t i, rsmi_gpu *g, tc_telem_sample *out)
{
    uint64_t uw = 0;
    if (st->f.power_cap && read_ok(st, g, st->f.power_cap(i, 0, &uw), "rsmi_dev_power_cap_get")) {
        out->power_limit_mw = (int64_t)((uw + 500) / 1000);
        out->valid |= TC_TF_POWER_LIMIT;
    }
}

/* count x resolution in µJ, exactly: the resolution is a float the library
 * set from a short decimal (15.3 µJ), so it is taken back to that decimal
 * where one of FLT_DIG digits gives the same float, then to pJ, and the
 * product is done in integers. 0 when the resolution makes no sense. */
static int counter_uj(uint64_t count, float resolution, uint64_t *out)
{
    char text[32];
    snprintf(text, sizeof text, "%.*g", FLT_DIG, (double)resolution);
    double res = strtod(text, NULL);
    if ((float)res != resolution)
        res = (double)resolution; /* not a short decimal: the float as it is */
    if (!(res > 0 && res < 1e6))  /* up to 1 J per count keeps r * pj below 2^64 */
        return 0;
    uint64_t pj = (uint64_t)llround(res * 1e6); /* resolution in pJ */
    uint64_t q = count / 1000000, r = count % 1000000;
    *out = q * pj + (r * pj + 500000) / 1000000;
    return 1;
}

static void read_energy(rsmi_state *st, uint32_t i, rsmi_gpu *g, tc_telem_sample *out)
{
    uint64_t count = 0, ts = 0, uj = 0;
    float res = 0;
    if (!st->f.energy ||
        !read_ok(st, g, st->f.energy(i, &count, &res, &ts), "rsmi_dev_energy_count_get"))
        return;
    if (!counter_uj(count, res, &uj)) {
        snprintf(st->last_error, sizeof st->last_error,
                 "%s %s: rsmi_dev_energy_count_get: resolution %g uJ makes no sense", g->info.name,
                 g->info.id, (double)res);
        return;
    }
    /* A counter that went down was reset (driver reload, GPU reset): what
     * it counted before stays counted. */
    if (g->have_energy && uj < g->last_uj)
        g->base_uj += g->last_uj;
    g->last_uj = uj;
    g->have_energy = 1;
    out->energy_uj = g->base_uj + uj;
    out->valid |= TC_TF_ENERGY;
}

static void read_util(rsmi_state *st, uint32_t i, rsmi_gpu *g, tc_telem_sample *out)
{
    uint32_t pct = 0;
    if (st->f.busy && read_ok(st, g, st->f.busy(i, &pct), "rsmi_dev_busy_percent_get")) {
        out->util_pct = (int)pct;
        out->valid |= TC_TF_UTIL_GPU;
    }
    if (st->f.mem_busy &&
        read_ok(st, g, st->f.mem_busy(i, &pct), "rsmi_dev_memory_busy_percent_get")) {
        out->mem_util_pct = (int)pct;
        out->valid |= TC_TF_UTIL_MEM;
    }
}

static void read_memory(rsmi_state *st, uint32_t i, rsmi_gpu *g, tc_telem_sample *out)
{
    uint64_t bytes = 0;
    if (st->f.mem_usage && read_ok(st, g, st->f.mem_usage(i, RSMI_MEM_TYPE_VRAM, &bytes),
                                   "rsmi_dev_memory_usage_get(VRAM)")) {
        out->mem_used_bytes = (int64_t)bytes;
        out->valid |= TC_TF_MEM_USED;
    }
    if (st->f.mem_total && read_ok(st, g, st->f.mem_total(i, RSMI_MEM_TYPE_VRAM, &bytes),
                                   "rsmi_dev_memory_total_get(VRAM)")) {
        out->mem_total_bytes = (int64_t)bytes;
        out->valid |= TC_TF_MEM_TOTAL;
    }
}

static void read_temps(rsmi_state *st, uint32_t i, rsmi_gpu *g, tc_telem_sample *out)
{
    int64_t mc = 0;
    if (!st->f.temp)
        return;
    if (read_ok(st, g, st->f.temp(i, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &mc),
                "rsmi_dev_temp_metric_get(EDGE)")) {
        out->temp_mc = (int)mc;
        out->valid |= TC_TF_TEMP;
    }
    if (read_ok(st, g, st->f.temp(i, RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_CURRENT, &mc),
                "rsmi_dev_temp_metric_get(JUNCTION)")) {
        out->temp_hot_mc = (int)mc;
        out->valid |= TC_TF_TEMP_HOT;
    }
}

static tc_err rocm_sample(void *state, int dev, tc_telem_sample *out)
{
    static void (*const readers[])(rsmi_state *, uint32_t, rsmi_gpu *, tc_telem_sample *) = {
        read_power, read_power_cap, read_energy, read_util, read_memory, read_temps};
    rsmi_state *st = state;
    memset(out, 0, sizeof *out);
    out->mono_ns = tc_mono_ns();
    if (!st || dev < 0 || dev >= st->ngpu)
        return TC_ERR_INVALID;
    for (size_t k = 0; k < sizeof readers / sizeof readers[0]; k++)
        readers[k](st, (uint32_t)dev, &st->gpu[dev], out);
    return TC_OK;
}

static const char *rocm_last_error(void *state)
{
    return state ? ((rsmi_state *)state)->last_error : "";
}

const tc_telem_backend tc_telem_rocm = {
    .name = "rocm",
    .init = rocm_init,
    .device_count = rocm_device_count,
    .device_info = rocm_device_info,
    .sample = rocm_sample,
    .shutdown = rocm_shutdown,
    .last_error = rocm_last_error,
};
