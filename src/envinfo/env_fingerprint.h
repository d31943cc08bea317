/* The fingerprint of a run's environment: everything outside the workload
 * that changes a result (OS, kernel, virtualisation, CPU, memory, the disk
 * of the model store, GPUs with driver and runtime, the inference server
 * and its model, truecost's own build). It is a JSON object, and its JSON
 * text is the stored form, so old fingerprints stay readable as fields are
 * added. A field that cannot be read is null, never 0 or "".
 *
 * Every file is read under cfg->root, so tests and copied trees work the
 * same way as the live host. */
#ifndef TC_ENV_FINGERPRINT_H
#define TC_ENV_FINGERPRINT_H

#include <jansson.h>
#include <stddef.h>

#include "core/tc_error.h"
#include "telemetry/telem.h"

typedef struct tc_env_config {
    const char *root;        /* default "/" */
    const char *model_store; /* path (under root) whose disk is described; default
                                $HOME/.ollama when it exists, else "/" */
    const char *url;         /* inference server to describe; NULL: see find_local */
    int find_local;          /* with url NULL: describe the first usual local server
                                that answers (tc_probe_find_local); none is not an error */
    const char *model;       /* the model to describe; NULL: the one loaded (Ollama
                                /api/ps), else the only one the server lists */
    const char *api_key;     /* Bearer token for the server, or NULL; never stored */
    double timeout_s;        /* per HTTP request; default 2 */
    /* Telemetry source for the GPUs: "auto", "none" or a backend name.
     * NULL: "auto" when root is "/", else "none" (a copied tree has no live
     * sensors). GPUs no source finds come from the PCI ids in sysfs. */
    const char *telemetry;
    tc_telem_config telem; /* NULL fields: sysfs_root <root>/sys, opt_root root, the
                              usual libraries and commands */
} tc_env_config;

/* Builds the fingerprint into *out (a new object the caller frees with
 * tc_env_free). Unreadable host fields are null, not errors. Returns
 * TC_ERR_NET / TC_ERR_NOTFOUND (detail in err) when cfg->url is given and
 * no inference server answers there; TC_ERR_INVALID for a malformed url;
 * TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_env_collect(const tc_env_config *cfg, json_t **out, char *err,
                                    size_t errlen);

/* Drops a fingerprint (json_decref); accepts NULL. */
void tc_env_free(json_t *fp);

/* Reads a fingerprint saved with `truecost env --json` from path into *out
 * (a new object; free with tc_env_free). TC_ERR_PARSE, with the file and
 * why in err, when it cannot be read, is not JSON or not an object. */
TC_MUST_CHECK tc_err tc_env_load(const char *path, json_t **out, char *err, size_t errlen);

#endif
