/* An old libnvidia-ml: no versioned symbols, no instantaneous power field,
 * no memory v2 and no energy counter, so the backend's fallbacks run. */
#define FAKE_NVML_OLD 1
#include "fake_nvml.c"
