/* Shared between the doctor's files: what was found about the host once,
 * and the helpers that read under the root and fill in checks. Not part
 * of the public API. */
#ifndef TC_DOCTOR_INTERNAL_H
#define TC_DOCTOR_INTERNAL_H

#include "core/tc_root.h"
#include "doctor.h"

typedef struct tc_doctor_ctx {
    const tc_doctor_config *cfg;
    const char *root;
    tc_doctor_env_fn env;
    tc_doctor_report *out;
    char user[64];
    char kernel[128]; /* "" when unknown */
    int wsl;          /* ROOT/proc/version mentions Microsoft */
    char nv_pci[160]; /* "0000:01:00.0 0000:02:00.0" */
    char amd_pci[160];
    int n_nv, n_amd;
    int nv_loaded, nouveau_loaded, amd_loaded;
} tc_doctor_ctx;

/* ROOT + rel into buf ("" when it does not fit, which nothing opens);
 * returns buf. Files are read with core/tc_root.h's tc_root_read. */
char *tc_doctor_path(const tc_doctor_ctx *c, char *buf, size_t len, const char *rel);

/* Adds a check (status ok) and returns it; NULL once the report is full. */
tc_doctor_check *tc_doctor_add(tc_doctor_ctx *c, const char *id, const char *title);

/* Append printf text to the check's evidence / fix ("; " between evidence
 * items; silently truncated) and set its status. Accept NULL checks. */
void tc_doctor_evidence(tc_doctor_check *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tc_doctor_fix(tc_doctor_check *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tc_doctor_set_status(tc_doctor_check *k, tc_doctor_status s);

/* The checks of each area, added to c->out in the order they print. */
void tc_doctor_check_nvidia(tc_doctor_ctx *c);
void tc_doctor_check_amd(tc_doctor_ctx *c);
void tc_doctor_check_wsl(tc_doctor_ctx *c);
void tc_doctor_check_cpu(tc_doctor_ctx *c);
void tc_doctor_check_server(tc_doctor_ctx *c);
void tc_doctor_check_truecost(tc_doctor_ctx *c);

#endif
