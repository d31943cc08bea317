/* What telemetry records: a device and its samples, each field with a
 * validity bit (a sensor that is missing is "not available", never 0).
 * telemetry/ fills them, store/ keeps them, analysis/ reads energy from
 * them. */
#ifndef TC_RECORD_SAMPLE_H
#define TC_RECORD_SAMPLE_H

#include <stdint.h>

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
    char name[128];       /* "NVIDIA H100 80GB HBM3", "package-0", ... */
    char id[64];          /* PCI bus id, "card0", "intel-rapl:0" */
    char driver[64];      /* driver version; "" when unknown */
    char runtime[64];     /* "CUDA 12.4", "ROCm 6.1.2"; "" when unknown */
    char energy_what[48]; /* "GPU board energy" or "CPU package energy" */
} tc_telem_device;

/* One sampled device of a run. */
typedef struct tc_run_device {
    tc_telem_device info;
    char backend[16];
} tc_run_device;

/* One sample of device `device` (an index into the run's devices). */
typedef struct tc_run_sample {
    int device;
    tc_telem_sample s;
} tc_run_sample;

#endif
