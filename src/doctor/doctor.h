/* `truecost doctor`: diagnoses what stops a GPU (or CPU energy readings, or
 * a local inference server, or truecost itself) from working, and says how
 * to fix it. Every file it reads is taken under a root directory, so tests
 * and copied trees can be diagnosed like a live host. Device nodes are only
 * tested for existence (fixtures hold them as plain empty files). */
#ifndef TC_DOCTOR_H
#define TC_DOCTOR_H

#include <stddef.h>

#include "core/tc_error.h"

typedef enum tc_doctor_status {
    TC_DOCTOR_OK = 0,
    TC_DOCTOR_WARN,
    TC_DOCTOR_FAIL,
    TC_DOCTOR_SKIP /* does not apply here (no such GPU, not WSL, --no-server) */
} tc_doctor_status;

/* Reads an environment variable; returns NULL when it is unset. */
typedef const char *(*tc_doctor_env_fn)(const char *name);

/* Loads NVML from lib (NULL: the usual names), initialises it and writes
 * the driver version it reports into ver. TC_ERR_NOTFOUND: the library
 * cannot be loaded; TC_ERR_INVALID: NVML reports "driver/library version
 * mismatch"; TC_ERR_IO: any other failure. The reason goes into err. */
typedef tc_err (*tc_doctor_nvml_fn)(const char *lib, char *ver, size_t len, char *err,
                                    size_t errlen);

/* What to diagnose; NULL / 0 fields take the defaults. */
typedef struct tc_doctor_config {
    const char *root;               /* default "/"; every file path is read under it */
    const char *user;               /* for render/video membership; default: the effective user */
    const char *kernel_release;     /* default ROOT/proc/sys/kernel/osrelease */
    tc_doctor_env_fn env;           /* default getenv */
    const char *nvml_lib;           /* default libnvidia-ml.so.1 */
    const char *rocm_lib;           /* default librocm_smi64.so */
    tc_doctor_nvml_fn nvml_version; /* default: dlopen nvml_lib (tests inject) */
    const char *store_path;         /* default tc_store_default_path() */
    int no_server;                  /* 1: skip the network checks */
    const char *const *server_urls; /* NULL-terminated; default the usual local ports */
    double server_timeout_s;        /* per endpoint; default 0.5 */
} tc_doctor_config;

#define TC_DOCTOR_MAX_CHECKS 32

typedef struct tc_doctor_check {
    char id[32];    /* stable, e.g. "nvidia.module" */
    char title[96]; /* what is checked, e.g. "NVIDIA kernel module loaded" */
    tc_doctor_status status;
    char evidence[768]; /* what was read, "; "-separated */
    char fix[640];      /* the command or action; "" when nothing is to be done */
} tc_doctor_check;

typedef struct tc_doctor_report {
    tc_doctor_check checks[TC_DOCTOR_MAX_CHECKS];
    int n;
    int status; /* 0 every check ok or skip, 1 warnings only, 2 any failure */
} tc_doctor_report;

/* Runs every check into *out (caller-owned; it is large, so heap or static
 * storage suits it). TC_ERR_NOTFOUND when root is not a directory, with
 * the reason in err; a check that cannot read something reports that in
 * its evidence instead of failing the call. */
TC_MUST_CHECK tc_err tc_doctor_run(const tc_doctor_config *cfg, tc_doctor_report *out, char *err,
                                   size_t errlen);

/* "ok", "warn", "fail", "skip". */
const char *tc_doctor_status_name(tc_doctor_status s);

/* The check with this id, or NULL. */
const tc_doctor_check *tc_doctor_find(const tc_doctor_report *r, const char *id);

/* The default nvml_version: dlopen, nvmlInit, nvmlSystemGetDriverVersion. */
TC_MUST_CHECK tc_err tc_doctor_nvml_version(const char *lib, char *ver, size_t len, char *err,
                                            size_t errlen);

#endif
