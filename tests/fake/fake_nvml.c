/* A fake libnvidia-ml for the NVML backend's tests, loaded through the real
 * dlopen path. Values come from environment variables read at nvmlInit:
 *
 *   FAKE_NVML_INIT=9              nvmlInit returns this code
 *   FAKE_NVML_DEVICES=2           GPU count (default 1, at most 8)
 *   FAKE_NVML_POWER_MW            nvmlDeviceGetPowerUsage (default 250000)
 *   FAKE_NVML_POWER_INSTANT_MW    field 186 (default 312345)
 *   FAKE_NVML_ENERGY_MJ=a,b,c     successive energy readings per GPU (the
 *                                 last repeats); else the counter starts at
 *   FAKE_NVML_ENERGY_RATE_MW      1000000 mJ and grows at this rate with
 *                                 CLOCK_MONOTONIC time since nvmlInit
 *   FAKE_NVML_LOST_AFTER=N        after N utilisation reads (one per sample)
 *                                 every device call returns GPU_IS_LOST
 *   FAKE_NVML_NOT_SUPPORTED=list  these return NOT_SUPPORTED (3):
 *   FAKE_NVML_NO_PERMISSION=list  these return NO_PERMISSION (4):
 *       power_instant power energy limit util memory temperature clock_sm clock_mem
 *
 * Variants are built from this file by defining, before including it:
 * FAKE_NVML_OLD (no FieldValues, MemoryInfo_v2, TotalEnergyConsumption, nor
 * any versioned symbol: the backend's fallbacks) and FAKE_NVML_NO_HANDLE (no
 * nvmlDeviceGetHandleByIndex at all: a required symbol missing). */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

/* Layouts as in NVIDIA's nvml.h, written independently of the backend's. */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st {
    int index;
} * nvmlDevice_t;

typedef struct {
    char busIdLegacy[16];
    unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

typedef struct {
    unsigned gpu, memory;
} nvmlUtilization_t;

typedef struct {
    unsigned fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    union {
        double dVal;
        unsigned uiVal;
        unsigned long long ullVal;
    } value;
} nvmlFieldValue_t;

#define FAKE_MAX_GPUS 8
#define FAKE_MAX_SEQ 16
#define GIB (1024ULL * 1024 * 1024)
#define MIB (1024ULL * 1024)

static struct {
    int initialised;
    int count;
    struct nvmlDevice_st dev[FAKE_MAX_GPUS];
    unsigned power_mw, instant_mw, rate_mw;
    unsigned long long energy_seq[FAKE_MAX_SEQ];
    int energy_n, energy_calls[FAKE_MAX_GPUS];
    long lost_after, util_calls;
    int lost;
    char not_supported[256], no_permission[256];
    struct timespec t0;
} fake;

/* Exported entry points (prototypes keep -Wmissing-prototypes quiet). */
nvmlReturn_t nvmlInit(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t r);
nvmlReturn_t nvmlDeviceGetCount(unsigned *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t d, nvmlPciInfo_t *p);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned len);
nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned len);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz);
#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p);
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t *v);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m);
#endif

static unsigned env_uint(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v && *v ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

static void env_str(const char *name, char *dst, size_t n)
{
    const char *v = getenv(name);
    snprintf(dst, n, ",%s,", v ? v : "");
}

static void parse_energy_seq(void)
{
    const char *v = getenv("FAKE_NVML_ENERGY_MJ");
    char *end;
    fake.energy_n = 0;
    while (v && *v && fake.energy_n < FAKE_MAX_SEQ) {
        fake.energy_seq[fake.energy_n++] = strtoull(v, &end, 10);
        v = *end == ',' ? end + 1 : NULL;
    }
}

nvmlReturn_t nvmlInit(void)
{
    memset(&fake, 0, sizeof fake);
    nvmlReturn_t r = (nvmlReturn_t)env_uint("FAKE_NVML_INIT", 0);
    if (r != 0)
        return r;
    fake.count = (int)env_uint("FAKE_NVML_DEVICES", 1);
    if (fake.count > FAKE_MAX_GPUS)
        fake.count = FAKE_MAX_GPUS;
    for (int i = 0; i < fake.count; i++)
        fake.dev[i].index = i;
    fake.power_mw = env_uint("FAKE_NVML_POWER_MW", 250000);
    fake.instant_mw = env_uint("FAKE_NVML_POWER_INSTANT_MW", 312345);
    fake.rate_mw = env_uint("FAKE_NVML_ENERGY_RATE_MW", 0);
    const char *lost = getenv("FAKE_NVML_LOST_AFTER");
    fake.lost_after = lost && *lost ? strtol(lost, NULL, 10) : -1; /* -1: never */
    env_str("FAKE_NVML_NOT_SUPPORTED", fake.not_supported, sizeof fake.not_supported);
    env_str("FAKE_NVML_NO_PERMISSION", fake.no_permission, sizeof fake.no_permission);
    parse_energy_seq();
    clock_gettime(CLOCK_MONOTONIC, &fake.t0);
    fake.initialised = 1;
    return 0;
}

nvmlReturn_t nvmlShutdown(void)
{
    fake.initialised = 0;
    return 0;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case 0:
        return "Success";
    case 1:
        return "Uninitialized";
    case 3:
        return "Not Supported";
    case 4:
        return "Insufficient Permissions";
    case 9:
        return "Driver Not Loaded";
    case 15:
        return "GPU is lost";
    case 25:
        return "Argument version mismatch";
    default:
        return "Unknown Error";
    }
}

/* The scripted outcome of reading `field` from d: 0 or an error code. */
static nvmlReturn_t outcome(nvmlDevice_t d, const char *field)
{
    if (!fake.initialised)
        return 1;
    if (!d || d->index < 0 || d->index >= fake.count || d != &fake.dev[d->index])
        return 2;
    if (fake.lost)
        return 15;
    char key[40];
    snprintf(key, sizeof key, ",%s,", field);
    if (strstr(fake.not_supported, key))
        return 3;
    if (strstr(fake.no_permission, key))
        return 4;
    return 0;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned *n)
{
    if (!fake.initialised)
        return 1;
    *n = (unsigned)fake.count;
    return 0;
}

#ifndef FAKE_NVML_NO_HANDLE
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *d)
{
    if (!fake.initialised)
        return 1;
    if (i >= (unsigned)fake.count)
        return 2;
    *d = &fake.dev[i];
    return 0;
}
#endif

/* v1 fills only the legacy 16-byte id, as the old driver did. */
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    nvmlReturn_t r = outcome(d, "pci");
    if (r == 0)
        snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0",
                 (0x10u + (unsigned)d->index) & 0xffu);
    return r;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned len)
{
    nvmlReturn_t r = outcome(d, "name");
    if (r == 0)
        snprintf(name, len, "NVIDIA H100 80GB HBM3");
    return r;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned len)
{
    snprintf(v, len, "550.54.15");
    return fake.initialised ? 0 : 1;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
    *v = 12040;
    return 0;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw)
{
    nvmlReturn_t r = outcome(d, "power");
    if (r == 0)
        *mw = fake.power_mw;
    return r;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw)
{
    nvmlReturn_t r = outcome(d, "limit");
    if (r == 0)
        *mw = 700000;
    return r;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    if (fake.lost_after >= 0 && fake.initialised && ++fake.util_calls > fake.lost_after)
        fake.lost = 1;
    nvmlReturn_t r = outcome(d, "util");
    if (r == 0) {
        u->gpu = 87;
        u->memory = 42;
    }
    return r;
}

/* v1's used includes the reserved 512 MiB, as on real drivers. */
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    nvmlReturn_t r = outcome(d, "memory");
    if (r == 0) {
        m->total = 80 * GIB;
        m->used = 10 * GIB + 512 * MIB;
        m->free = m->total - m->used;
    }
    return r;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t)
{
    nvmlReturn_t r = outcome(d, "temperature");
    if (r == 0 && sensor != 0)
        return 2;
    if (r == 0)
        *t = 65;
    return r;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
    nvmlReturn_t r = outcome(d, type == 1 ? "clock_sm" : type == 2 ? "clock_mem" : "clock");
    if (r == 0 && type != 1 && type != 2)
        return 2;
    if (r == 0)
        *mhz = type == 1 ? 1980 : 2619;
    return r;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlInit_v2(void)
{
    return nvmlInit();
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
    return nvmlDeviceGetCount(n);
}

#ifndef FAKE_NVML_NO_HANDLE
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
    return nvmlDeviceGetHandleByIndex(i, d);
}
#endif

/* v3 fills the 32-byte id with the 8-digit domain; the legacy one stays
 * empty so a backend reading the wrong member shows. */
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
    nvmlReturn_t r = outcome(d, "pci");
    if (r == 0) {
        memset(p, 0, sizeof *p);
        snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0",
                 (0x10u + (unsigned)d->index) & 0xffu);
        p->bus = 0x10u + (unsigned)d->index;
    }
    return r;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
    nvmlReturn_t r = outcome(d, "field_values");
    if (r != 0)
        return r;
    for (int i = 0; i < n; i++) {
        v[i].nvmlReturn = v[i].fieldId == 186 ? outcome(d, "power_instant") : 2;
        v[i].valueType = 1;
        v[i].value.uiVal = v[i].nvmlReturn == 0 ? fake.instant_mw : 0xdeadbeef;
    }
    return 0;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
    nvmlReturn_t r = outcome(d, "energy");
    if (r != 0)
        return r;
    if (fake.energy_n > 0) {
        int k = fake.energy_calls[d->index]++;
        *mj = fake.energy_seq[k < fake.energy_n ? k : fake.energy_n - 1];
        return 0;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (now.tv_sec - fake.t0.tv_sec) * 1000000000LL + (now.tv_nsec - fake.t0.tv_nsec);
    *mj = 1000000ULL + (unsigned long long)fake.rate_mw * (unsigned long long)ns / 1000000000ULL;
    return 0;
}

/* Like the real driver: anything but sizeof | 2 << 24 in .version is a
 * mismatch, a bare 2 included. */
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
    nvmlReturn_t r = outcome(d, "memory");
    if (r != 0)
        return r;
    if (m->version != (unsigned)(sizeof(nvmlMemory_v2_t) | (2u << 24)))
        return 25;
    m->total = 80 * GIB;
    m->reserved = 512 * MIB;
    m->used = 10 * GIB;
    m->free = m->total - m->reserved - m->used;
    return 0;
}
#endif
