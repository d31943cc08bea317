/* A libnvidia-ml without nvmlDeviceGetHandleByIndex (either version): a
 * required symbol missing disables the backend. */
#define FAKE_NVML_NO_HANDLE 1
#include "fake_nvml.c"
