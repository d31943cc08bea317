/* Shared between the doctor's files: what was found about the host once,
 * and the helpers that read under the root and fill in checks. Not part
 * of the public API. */
#ifndef TC_DOCTOR_INTERNAL_H
#define TC_DOCTOR_INTERNAL_H

#include "doctor.h"

typedef struct dr_ctx {
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
} dr_ctx;

/* ROOT + rel (rel starts with '/') into buf; returns buf. */
char *dr_path(const dr_ctx *c, char *buf, size_t len, const char *rel);

/* 1 when ROOT + rel exists (any type). */
int dr_exists(const dr_ctx *c, const char *rel);

/* Reads ROOT + rel (trailing whitespace removed); 0 or -1. */
int dr_read(const dr_ctx *c, const char *rel, char *buf, size_t len);

/* 1 when a module is in ROOT/proc/modules or ROOT/sys/module/NAME. */
int dr_module_loaded(const dr_ctx *c, const char *name);

/* Adds a check (status ok) and returns it; NULL once the report is full. */
tc_doctor_check *dr_add(dr_ctx *c, const char *id, const char *title);

/* Appends printf text to the check's evidence / fix ("; " between evidence
 * items); silently truncated. Accept NULL checks. */
void dr_ev(tc_doctor_check *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dr_fix(tc_doctor_check *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dr_set(tc_doctor_check *k, tc_doctor_status s);

void dr_check_nvidia(dr_ctx *c);
void dr_check_amd(dr_ctx *c);
void dr_check_wsl(dr_ctx *c);
void dr_check_cpu(dr_ctx *c);
void dr_check_server(dr_ctx *c);
void dr_check_truecost(dr_ctx *c);

#endif
