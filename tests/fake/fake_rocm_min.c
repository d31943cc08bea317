/* A librocm_smi64 with only the required entry points: every optional
 * field is missing, so the backend's fallbacks and invalid bits show. */
#define FAKE_RSMI_MINIMAL 1
#include "fake_rocm.c"
