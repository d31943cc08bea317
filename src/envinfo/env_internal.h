/* Shared by the envinfo files: reading under a root, and the builders of
 * each block of the fingerprint. Not part of the public contract. */
#ifndef TC_ENV_INTERNAL_H
#define TC_ENV_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/tc_root.h"
#include "env_fingerprint.h"

/* tc_root_read of root + rel, but an empty file counts as missing (a
 * field is null, never ""). Returns 0, or -1 when it is missing,
 * unreadable, empty or too long. */
int tc_env_read(const char *root, const char *rel, char *buf, size_t len);

/* A JSON string of s, or null when s is NULL or empty. */
json_t *tc_env_str(const char *s);

/* The blocks; each returns a new object (array for gpus), NULL only when
 * out of memory. */
json_t *tc_env_os(const char *root);
json_t *tc_env_cpu(const char *root);
json_t *tc_env_memory(const char *root);
json_t *tc_env_disk(const char *root, const char *path);
json_t *tc_env_gpus(const tc_env_config *cfg, const char *root);

/* The server block into *out (json null when there is none and none was
 * asked for). Errors as tc_env_collect's. */
TC_MUST_CHECK tc_err tc_env_server(const tc_env_config *cfg, json_t **out, char *err,
                                   size_t errlen);

#endif
