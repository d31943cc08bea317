/* AMD GPUs through ROCm SMI (librocm_smi64), loaded with dlopen at run time
 * so the binary builds and runs without ROCm.
 *
 * init loads cfg->rocm_lib, else "librocm_smi64.so", "librocm_smi64.so.1",
 * then <opt_root>/opt/rocm/lib/librocm_smi64.so; TC_ERR_NOTFOUND (reason
 * and fix in err) when the library, a required symbol, the kernel driver
 * (rsmi_init fails) or any GPU is missing. Fields a GPU or library does not
 * offer (NOT_SUPPORTED, PERMISSION, a symbol an old ROCm lacks) lose their
 * valid bit; PERMISSION and other failures are noted in last_error.
 *
 * Energy is the GPU's counter ("GPU energy counter"): count x resolution
 * in µJ, where a counter that goes down is taken as a reset and the total
 * keeps growing from where it was. Power is ROCm SMI's averaged reading
 * (power_instant = 0), or, where the GPU has no average (MI300), the
 * current socket power (power_instant = 1). Clocks are not read. */
#ifndef TC_TELEM_ROCM_H
#define TC_TELEM_ROCM_H

#include "telem.h"

extern const tc_telem_backend tc_telem_rocm;

#endif
