/* NVIDIA GPUs through NVML (libnvidia-ml), loaded with dlopen at run time so
 * the binary builds and runs without the driver or the CUDA SDK.
 *
 * init loads cfg->nvml_lib, else "libnvidia-ml.so.1", then "libnvidia-ml.so";
 * TC_ERR_NOTFOUND (reason and fix in err) when the library, a required
 * symbol, the kernel driver or any GPU is missing. Fields a GPU or driver
 * does not offer (NOT_SUPPORTED, NO_PERMISSION, a symbol an old driver
 * lacks) lose their valid bit; a GPU that falls off the bus makes sample
 * return TC_ERR_IO with "GPU lost" in last_error. Power is the instantaneous
 * reading where the driver has one (power_instant = 1), else NVML's
 * averaged one; energy is the board counter "GPU board energy". */
#ifndef TC_TELEM_NVML_H
#define TC_TELEM_NVML_H

#include "telem.h"

extern const tc_telem_backend tc_telem_nvml;

#endif
