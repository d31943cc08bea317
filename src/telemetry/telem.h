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
#include "record/record_sample.h"

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
