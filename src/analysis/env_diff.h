/* What differs between two runs' environment fingerprints (the JSON objects
 * envinfo/ collects and the store keeps) in a way that makes comparing
 * their figures unclean. */
#ifndef TC_ENV_DIFF_H
#define TC_ENV_DIFF_H

#include <jansson.h>

#include "core/tc_error.h"

/* The differences between fingerprints a and b that make a comparison of
 * their runs unclean: a new array in *out (caller frees) of objects
 * {field: dotted path ("gpus.0.driver"), a, b, why}, in a fixed order;
 * empty when none. Memory totals within 1% count as equal (kernels reserve
 * slightly different amounts). Returns TC_OK or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_fingerprint_diff(json_t *a, json_t *b, json_t **out);

/* 1 when fp describes the client host that measured, not the server box
 * (`run --telemetry URL` where no agent answered /env: host.role
 * "client"), so its CPU, memory and GPUs are not the server's. */
int tc_fingerprint_client_host(json_t *fp);

#endif
