/* NVML backend. The prototypes and structs below are written from NVIDIA's
 * public nvml.h (API 13) rather than included, so no SDK is needed to build;
 * each layout matches the header's, which the driver's ABI keeps stable. */
#include "telem_nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tc_time.h"

/* NVML return codes (nvmlReturn_t) this file acts on. */
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_GPU_IS_LOST = 15
};

enum { NVML_FI_DEV_POWER_INSTANT = 186, NVML_TEMPERATURE_GPU = 0 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

typedef int nvml_ret;
typedef struct nvmlDevice_st *nvml_dev;

typedef struct {
    char busIdLegacy[16]; /* the only id nvmlDeviceGetPciInfo (v1) fills */
    unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvml_pci;

typedef struct {
    unsigned long long total, free, used;
} nvml_mem_v1;

typedef struct {
    unsigned version;
    unsigned long long total, reserved, free, used;
} nvml_mem_v2;

/* NVML_STRUCT_VERSION(Memory, 2): the size in the low bits, the version in
 * the top byte. A bare 2 is rejected with ARGUMENT_VERSION_MISMATCH. */
#define NVML_MEMORY_V2 ((unsigned)(sizeof(nvml_mem_v2) | (2u << 24)))

typedef struct {
    unsigned gpu, memory;
} nvml_util;

typedef union {
    double dVal;
    unsigned uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    int siVal;
    unsigned short usVal;
} nvml_value;

typedef struct {
    unsigned fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType; /* nvmlValueType_t: 0 double, 1 uint, 2 ulong, 3 ull, 4 sll, 5 int, 6 ushort */
    nvml_ret nvmlReturn;
    nvml_value value;
} nvml_field;

/* The entry points; the optional ones may be NULL. */
typedef struct {
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    const char *(*error_string)(nvml_ret);
    nvml_ret (*count)(unsigned *);
    nvml_ret (*handle)(unsigned, nvml_dev *);
    nvml_ret (*pci)(nvml_dev, nvml_pci *);
    int pci_legacy; /* pci is v1: the id is in busIdLegacy */
    nvml_ret (*name)(nvml_dev, char *, unsigned);
    nvml_ret (*driver_version)(char *, unsigned);
    nvml_ret (*cuda_version)(int *);
    nvml_ret (*field_values)(nvml_dev, int, nvml_field *);
    nvml_ret (*power)(nvml_dev, unsigned *);
    nvml_ret (*energy)(nvml_dev, unsigned long long *);
    nvml_ret (*power_limit)(nvml_dev, unsigned *);
    nvml_ret (*util)(nvml_dev, nvml_util *);
    nvml_ret (*mem_v2)(nvml_dev, nvml_mem_v2 *);
    nvml_ret (*mem_v1)(nvml_dev, nvml_mem_v1 *);
    nvml_ret (*temp)(nvml_dev, int, unsigned *);
    nvml_ret (*clock)(nvml_dev, int, unsigned *);
} nvml_api;

typedef struct {
    nvml_dev handle;
    tc_telem_device info;
    int lost;
    int no_instant; /* the instant power field said NOT_SUPPORTED once */
} nvml_gpu;

typedef struct {
    void *dl;
    nvml_api f;
    int initialised; /* nvmlInit succeeded: nvmlShutdown is owed */
    int ngpu;
    nvml_gpu *gpu;
    char last_error[512]; /* a GPU's name and id fit whole */
} nvml_state;

#define NO_DRIVER_HINT                                                                             \
    "install the driver, or check that the nvidia kernel module is loaded: lsmod | grep nvidia"

/* The first of `names` (newest version first, NULL-terminated) the library
 * exports; `*which` gets its index. */
static void *find_sym(void *dl, const char *const *names, int *which)
{
    for (int i = 0; names[i]; i++) {
        void *p = dlsym(dl, names[i]);
        if (p) {
            if (which)
                *which = i;
            return p;
        }
    }
    return NULL;
}

#define SYM(dst, ...)                                                                              \
    ((dst) = (__typeof__(dst))find_sym(dl, (const char *const[]){__VA_ARGS__, NULL}, NULL))

static tc_err load_api(void *dl, nvml_api *f, char *err, size_t errlen)
{
    /* Required: without these there is nothing to read. */
    const char *missing = NULL;
    if (!SYM(f->init, "nvmlInit_v2", "nvmlInit"))
        missing = "nvmlInit_v2";
    else if (!SYM(f->shutdown, "nvmlShutdown"))
        missing = "nvmlShutdown";
    else if (!SYM(f->error_string, "nvmlErrorString"))
        missing = "nvmlErrorString";
    else if (!SYM(f->count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"))
        missing = "nvmlDeviceGetCount_v2";
    else if (!SYM(f->handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"))
        missing = "nvmlDeviceGetHandleByIndex_v2";
    if (missing)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "libnvidia-ml: symbol %s not found (driver too old?)", missing);

    /* Optional: each one missing costs only its field. */
    int which = 0;
    f->pci = (__typeof__(f->pci))find_sym(dl,
                                          (const char *const[]){"nvmlDeviceGetPciInfo_v3",
                                                                "nvmlDeviceGetPciInfo_v2",
                                                                "nvmlDeviceGetPciInfo", NULL},
                                          &which);
    f->pci_legacy = which == 2;
    SYM(f->name, "nvmlDeviceGetName");
    SYM(f->driver_version, "nvmlSystemGetDriverVersion");
    SYM(f->cuda_version, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
    SYM(f->field_values, "nvmlDeviceGetFieldValues");
    SYM(f->power, "nvmlDeviceGetPowerUsage");
    SYM(f->energy, "nvmlDeviceGetTotalEnergyConsumption");
    SYM(f->power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    SYM(f->util, "nvmlDeviceGetUtilizationRates");
    SYM(f->mem_v2, "nvmlDeviceGetMemoryInfo_v2");
    SYM(f->mem_v1, "nvmlDeviceGetMemoryInfo");
    SYM(f->temp, "nvmlDeviceGetTemperature");
    SYM(f->clock, "nvmlDeviceGetClockInfo");
    return TC_OK;
}

/* Copies the string in src[srcn], truncating to fit dst[n]. */
static void copy_str(char *dst, size_t n, const char *src, size_t srcn)
{
    size_t len = strnlen(src, srcn < n - 1 ? srcn : n - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static void describe_gpu(nvml_state *st, int i)
{
    const nvml_api *f = &st->f;
    nvml_gpu *g = &st->gpu[i];
    tc_telem_device *d = &g->info;
    d->kind = TC_TELEM_GPU;
    copy_str(d->energy_what, sizeof d->energy_what, "GPU board energy", sizeof "GPU board energy");
    char buf[128] = "";
    if (f->name && f->name(g->handle, buf, sizeof buf) == NVML_SUCCESS)
        copy_str(d->name, sizeof d->name, buf, sizeof buf);
    else
        snprintf(d->name, sizeof d->name, "NVIDIA GPU %d", i);
    nvml_pci pci;
    memset(&pci, 0, sizeof pci);
    if (f->pci && f->pci(g->handle, &pci) == NVML_SUCCESS)
        copy_str(d->id, sizeof d->id, f->pci_legacy ? pci.busIdLegacy : pci.busId,
                 f->pci_legacy ? sizeof pci.busIdLegacy : sizeof pci.busId);
    else
        snprintf(d->id, sizeof d->id, "nvml:%d", i);
    /* The driver and CUDA versions are per host; every GPU carries them so
     * a device description stands on its own. */
    buf[0] = '\0';
    if (f->driver_version && f->driver_version(buf, sizeof buf) == NVML_SUCCESS)
        copy_str(d->driver, sizeof d->driver, buf, sizeof buf);
    int cuda = 0;
    if (f->cuda_version && f->cuda_version(&cuda) == NVML_SUCCESS && cuda > 0)
        snprintf(d->runtime, sizeof d->runtime, "CUDA %d.%d", cuda / 1000, (cuda % 1000) / 10);
}

static tc_err open_gpus(nvml_state *st, char *err, size_t errlen)
{
    unsigned n = 0;
    nvml_ret r = st->f.count(&n);
    if (r != NVML_SUCCESS)
        return tc_fail(err, errlen, TC_ERR_IO, "libnvidia-ml: nvmlDeviceGetCount: %s",
                       st->f.error_string(r));
    if (n == 0)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "libnvidia-ml: the driver sees no GPU");
    st->gpu = calloc(n, sizeof *st->gpu);
    if (!st->gpu)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "libnvidia-ml: out of memory");
    for (unsigned i = 0; i < n; i++) {
        nvml_dev h = NULL;
        r = st->f.handle(i, &h);
        if (r != NVML_SUCCESS) {
            /* One GPU we may not open (a container's cgroup, a lost GPU)
             * should not hide the others. */
            snprintf(st->last_error, sizeof st->last_error,
                     "GPU %u skipped: nvmlDeviceGetHandleByIndex: %s", i, st->f.error_string(r));
            continue;
        }
        st->gpu[st->ngpu].handle = h;
        describe_gpu(st, st->ngpu);
        st->ngpu++;
    }
    if (st->ngpu == 0)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "libnvidia-ml: %s", st->last_error);
    return TC_OK;
}

static tc_err start_nvml(nvml_state *st, char *err, size_t errlen)
{
    nvml_ret r = st->f.init();
    if (r == NVML_ERROR_DRIVER_NOT_LOADED || r == NVML_ERROR_LIBRARY_NOT_FOUND)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "libnvidia-ml: nvmlInit: %s (%s)",
                       st->f.error_string(r), NO_DRIVER_HINT);
    if (r != NVML_SUCCESS)
        return tc_fail(err, errlen, TC_ERR_IO, "libnvidia-ml: nvmlInit: %s", st->f.error_string(r));
    st->initialised = 1;
    return TC_OK;
}

static void nvml_shutdown(void *state)
{
    nvml_state *st = state;
    if (!st)
        return;
    if (st->initialised)
        st->f.shutdown();
    if (st->dl)
        dlclose(st->dl);
    free(st->gpu);
    free(st);
}

static tc_err nvml_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    *state = NULL;
    nvml_state *st = calloc(1, sizeof *st);
    if (!st)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "libnvidia-ml: out of memory");
    const char *lib = cfg && cfg->nvml_lib ? cfg->nvml_lib : "libnvidia-ml.so.1";
    st->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!st->dl && !(cfg && cfg->nvml_lib))
        st->dl = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL); /* a dev-only install */
    tc_err rc;
    struct stat sb;
    if (!st->dl && cfg && cfg->nvml_lib && stat(lib, &sb) == 0) { /* there, but no library */
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND,
                     "%s is not a library that loads (%s): give --nvml-lib the path of "
                     "libnvidia-ml.so.1",
                     lib, dlerror());
        goto fail;
    }
    if (!st->dl) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND,
                     "%s not found: no NVIDIA driver on this host (%s)", lib, NO_DRIVER_HINT);
        goto fail;
    }
    if ((rc = load_api(st->dl, &st->f, err, errlen)) != TC_OK)
        goto fail;
    if ((rc = start_nvml(st, err, errlen)) != TC_OK)
        goto fail;
    if ((rc = open_gpus(st, err, errlen)) != TC_OK)
        goto fail;
    *state = st;
    return TC_OK;
fail:
    nvml_shutdown(st);
    return rc;
}

static int nvml_device_count(void *state)
{
    return state ? ((nvml_state *)state)->ngpu : 0;
}

static void nvml_device_info(void *state, int dev, tc_telem_device *out)
{
    nvml_state *st = state;
    if (st && dev >= 0 && dev < st->ngpu)
        *out = st->gpu[dev].info;
    else
        memset(out, 0, sizeof *out);
}

/* Whether a read worked. NOT_SUPPORTED and NO_PERMISSION only cost the
 * field; GPU_IS_LOST marks the whole GPU; anything else is noted. */
static int read_ok(nvml_state *st, nvml_gpu *g, nvml_ret r, const char *call)
{
    if (r == NVML_SUCCESS)
        return 1;
    if (r == NVML_ERROR_GPU_IS_LOST) {
        g->lost = 1;
        snprintf(st->last_error, sizeof st->last_error,
                 "GPU lost: %s (%s) fell off the bus (%s: %s); check dmesg for Xid 79, then "
                 "reset the GPU or reboot",
                 g->info.name, g->info.id, call, st->f.error_string(r));
    } else if (r != NVML_ERROR_NOT_SUPPORTED) {
        snprintf(st->last_error, sizeof st->last_error, "%s %s: %s: %s", g->info.name, g->info.id,
                 call, st->f.error_string(r));
    }
    return 0;
}

static int64_t field_as_int(const nvml_field *fv)
{
    switch (fv->valueType) {
    case 0:
        return (int64_t)fv->value.dVal;
    case 1:
        return fv->value.uiVal;
    case 2:
        return (int64_t)fv->value.ulVal;
    case 3:
        return (int64_t)fv->value.ullVal;
    case 4:
        return fv->value.sllVal;
    case 5:
        return fv->value.siVal;
    default:
        return fv->value.usVal;
    }
}

/* Instantaneous power (field 186) where the driver has it; else
 * nvmlDeviceGetPowerUsage, which on Ampere and newer is a 1-second average
 * (instantaneous on older GPUs, but we cannot tell which, so it says 0). */
static void read_power(nvml_state *st, nvml_gpu *g, tc_telem_sample *out)
{
    if (st->f.field_values && !g->no_instant) {
        nvml_field fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
        nvml_ret r = st->f.field_values(g->handle, 1, &fv);
        if (r == NVML_SUCCESS)
            r = fv.nvmlReturn; /* the call can succeed while this value failed */
        if (r == NVML_ERROR_NOT_SUPPORTED)
            g->no_instant = 1;
        if (read_ok(st, g, r, "nvmlDeviceGetFieldValues(POWER_INSTANT)")) {
            out->power_mw = field_as_int(&fv);
            out->power_instant = 1;
            out->valid |= TC_TF_POWER;
            return;
        }
        if (g->lost)
            return;
    }
    unsigned mw = 0;
    if (st->f.power && read_ok(st, g, st->f.power(g->handle, &mw), "nvmlDeviceGetPowerUsage")) {
        out->power_mw = mw;
        out->power_instant = 0;
        out->valid |= TC_TF_POWER;
    }
}

/* The board's energy counter (Volta and newer), mJ since the driver
 * loaded; it refreshes about every 100 ms, so short windows are coarse. */
static void read_energy(nvml_state *st, nvml_gpu *g, tc_telem_sample *out)
{
    unsigned long long mj = 0;
    if (st->f.energy &&
        read_ok(st, g, st->f.energy(g->handle, &mj), "nvmlDeviceGetTotalEnergyConsumption")) {
        out->energy_uj = (uint64_t)mj * 1000;
        out->valid |= TC_TF_ENERGY;
    }
    unsigned limit = 0;
    if (!g->lost && st->f.power_limit &&
        read_ok(st, g, st->f.power_limit(g->handle, &limit), "nvmlDeviceGetEnforcedPowerLimit")) {
        out->power_limit_mw = limit;
        out->valid |= TC_TF_POWER_LIMIT;
    }
}

static void read_util(nvml_state *st, nvml_gpu *g, tc_telem_sample *out)
{
    nvml_util u = {0, 0};
    if (st->f.util && read_ok(st, g, st->f.util(g->handle, &u), "nvmlDeviceGetUtilizationRates")) {
        out->util_pct = (int)u.gpu;
        out->mem_util_pct = (int)u.memory;
        out->valid |= TC_TF_UTIL_GPU | TC_TF_UTIL_MEM;
    }
}

/* v2 reports used memory without the driver's reserved part; v1's `used`
 * includes it, so on old drivers used reads a few hundred MiB higher. */
static void read_memory(nvml_state *st, nvml_gpu *g, tc_telem_sample *out)
{
    if (st->f.mem_v2) {
        nvml_mem_v2 m;
        memset(&m, 0, sizeof m);
        m.version = NVML_MEMORY_V2;
        nvml_ret r = st->f.mem_v2(g->handle, &m);
        if (r == NVML_ERROR_GPU_IS_LOST) {
            read_ok(st, g, r, "nvmlDeviceGetMemoryInfo_v2");
            return;
        }
        if (r == NVML_SUCCESS) {
            out->mem_used_bytes = (int64_t)m.used;
            out->mem_total_bytes = (int64_t)m.total;
            out->valid |= TC_TF_MEM_USED | TC_TF_MEM_TOTAL;
            return;
        }
    }
    nvml_mem_v1 m = {0, 0, 0};
    if (st->f.mem_v1 && read_ok(st, g, st->f.mem_v1(g->handle, &m), "nvmlDeviceGetMemoryInfo")) {
        out->mem_used_bytes = (int64_t)m.used;
        out->mem_total_bytes = (int64_t)m.total;
        out->valid |= TC_TF_MEM_USED | TC_TF_MEM_TOTAL;
    }
}

static void read_temp_clocks(nvml_state *st, nvml_gpu *g, tc_telem_sample *out)
{
    unsigned v = 0;
    if (st->f.temp && read_ok(st, g, st->f.temp(g->handle, NVML_TEMPERATURE_GPU, &v),
                              "nvmlDeviceGetTemperature")) {
        out->temp_mc = (int)v * 1000;
        out->valid |= TC_TF_TEMP;
    }
    if (!st->f.clock)
        return;
    if (!g->lost &&
        read_ok(st, g, st->f.clock(g->handle, NVML_CLOCK_SM, &v), "nvmlDeviceGetClockInfo(SM)")) {
        out->clock_sm_mhz = (int)v;
        out->valid |= TC_TF_CLOCK_SM;
    }
    if (!g->lost &&
        read_ok(st, g, st->f.clock(g->handle, NVML_CLOCK_MEM, &v), "nvmlDeviceGetClockInfo(MEM)")) {
        out->clock_mem_mhz = (int)v;
        out->valid |= TC_TF_CLOCK_MEM;
    }
}

static tc_err nvml_sample(void *state, int dev, tc_telem_sample *out)
{
    static void (*const readers[])(nvml_state *, nvml_gpu *, tc_telem_sample *) = {
        read_power, read_energy, read_util, read_memory, read_temp_clocks};
    nvml_state *st = state;
    memset(out, 0, sizeof *out);
    out->mono_ns = tc_mono_ns();
    if (!st || dev < 0 || dev >= st->ngpu)
        return TC_ERR_INVALID;
    nvml_gpu *g = &st->gpu[dev];
    for (size_t i = 0; i < sizeof readers / sizeof readers[0] && !g->lost; i++)
        readers[i](st, g, out);
    if (g->lost) {
        /* Half a sample from a GPU that fell off the bus is not trusted. */
        out->valid = 0;
        return TC_ERR_IO;
    }
    return TC_OK;
}

static const char *nvml_last_error(void *state)
{
    return state ? ((nvml_state *)state)->last_error : "";
}

const tc_telem_backend tc_telem_nvml = {
    .name = "nvml",
    .init = nvml_init,
    .device_count = nvml_device_count,
    .device_info = nvml_device_info,
    .sample = nvml_sample,
    .shutdown = nvml_shutdown,
    .last_error = nvml_last_error,
};
