/* Hardware telemetry: one interface, one file per source (nvml, rocm,
 * amdgpu sysfs, rapl, nvidia-smi, rocm-smi), chosen at run time. Vendor
 * libraries are dlopen()ed, so one binary runs on NVIDIA, AMD and CPU-only
 * hosts and builds without their SDKs. Every field of a sample has a
 * validity bit: a sensor that is missing is "not available", never 0.
 *
 * Every backend reads through a root it is given (a sysfs root directory,
 * a library path, a command), so tests point it at fixtures. */
#ifndef TC_TELEM_H
#define TC_TELEM_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

/* Validity bits of tc_telem_sample.valid. */
enum {
    TC_TF_POWER = 1u << 0,       /* power_mw */
    TC_TF_ENERGY = 1u << 1,      /* energy_uj */
    TC_TF_UTIL_GPU = 1u << 2,    /* util_pct */
    TC_TF_UTIL_MEM = 1u << 3,    /* mem_util_pct */
    TC_TF_MEM_USED = 1u << 4,    /* mem_used_bytes */
    TC_TF_MEM_TOTAL = 1u << 5,   /* mem_total_bytes */
    TC_TF_TEMP = 1u << 6,        /* temp_mc (edge / GPU) */
    TC_TF_TEMP_HOT = 1u << 7,    /* temp_hot_mc (junction / hotspot) */
    TC_TF_CLOCK_SM = 1u << 8,    /* clock_sm_mhz */
    TC_TF_CLOCK_MEM = 1u << 9,   /* clock_mem_mhz */
    TC_TF_POWER_LIMIT = 1u << 10 /* power_limit_mw */
};

typedef struct tc_telem_sample {
    int64_t mono_ns; /* CLOCK_MONOTONIC when read */
    uint32_t valid;  /* TC_TF_* bits; a field without its bit is not available */
    int64_t power_mw;
    int power_instant; /* 1: instantaneous reading; 0: averaged by the device (e.g. 1 s) */
    /* Energy counter in microjoules, cumulative and monotonic as the
     * backend keeps it (wraparounds already folded in). Energy of a window
     * is the difference of two samples. */
    uint64_t energy_uj;
    int util_pct;     /* GPU busy %, or CPU: not set */
    int mem_util_pct; /* memory controller busy % */
    int64_t mem_used_bytes, mem_total_bytes;
    int temp_mc, temp_hot_mc; /* milli-degrees Celsius */
    int clock_sm_mhz, clock_mem_mhz;
    int64_t power_limit_mw;
} tc_telem_sample;

typedef enum tc_telem_kind { TC_TELEM_GPU, TC_TELEM_CPU } tc_telem_kind;

typedef struct tc_telem_device {
    tc_telem_kind kind;
    char name[128];    /* "NVIDIA H100 80GB HBM3", "package-0", ... */
    char id[64];       /* PCI bus id, "card0", "intel-rapl:0" */
    char driver[64];   /* driver version; "" when unknown */
    char runtime[64];  /* "CUDA 12.4", "ROCm 6.1.2"; "" when unknown */
    char energy_what[48]; /* "GPU board energy" or "CPU package energy" */
} tc_telem_device;

/* Where backends read from; NULL fields take the real defaults. */
typedef struct tc_telem_config {
    const char *sysfs_root;  /* default "/sys" */
    const char *opt_root;    /* default "/" (for /opt/rocm/.info/version) */
    const char *nvml_lib;    /* default "libnvidia-ml.so.1", then "libnvidia-ml.so" */
    const char *rocm_lib;    /* default "librocm_smi64.so" (and .so.1, /opt/rocm/lib/) */
    const char *nvidia_smi;  /* default "nvidia-smi" (found on PATH) */
    const char *rocm_smi;    /* default "rocm-smi" */
} tc_telem_config;

/* One source of samples. Every function gets the state its init made.
 * `last_error` says why the backend or a field stopped working ("" when
 * none); the text is owned by the backend. */
typedef struct tc_telem_backend {
    const char *name; /* "nvml", "rocm", "amdgpu", "rapl", "nvidia-smi", "rocm-smi" */
    /* Finds the devices. TC_ERR_NOTFOUND when the source is absent (no
     * library, no sysfs node), with the reason and, where one exists, the
     * fix in err; *state is NULL then. */
    tc_err (*init)(const tc_telem_config *cfg, void **state, char *err, size_t errlen);
    int (*device_count)(void *state);
    void (*device_info)(void *state, int dev, tc_telem_device *out);
    /* Reads one sample. Fields it cannot read lose their valid bit; a
     * device lost mid-run returns TC_ERR_IO (the caller marks later samples
     * invalid and goes on). */
    tc_err (*sample)(void *state, int dev, tc_telem_sample *out);
    void (*shutdown)(void *state); /* accepts NULL */
    const char *(*last_error)(void *state);
} tc_telem_backend;

extern const tc_telem_backend tc_telem_rapl;
extern const tc_telem_backend tc_telem_amdgpu;

#endif
