/* truecost kernels' work: one or two profilers' kernel tables read, classified and
 * compared. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/app_kernels.h"
#include "assess/kernels.h"
#include "report/report_kernels.h"

/* Profiles the tables of f, compares two, and prints the document. */
static int report(const tc_kernel_files *f, const tc_app_kernels_args *a)
{
    tc_kernel_profile p[2] = {{0}};
    tc_kernel_compare c = {0};
    tc_kernels_doc d = {.n = f->n, .rules_file = a->rules, .top = (size_t)a->top};
    tc_err rc = TC_OK;
    for (size_t i = 0; rc == TC_OK && i < f->n; i++) {
        rc = tc_kernels_profile(&f->t[i], d.top, &p[i]);
        d.p[i] = &p[i];
        d.files[i] = a->files[i];
    }
    if (rc == TC_OK && f->n == 2) {
        rc = tc_kernels_compare(&p[0], &p[1], NULL, &c);
        d.c = &c;
    }
    int code = TC_EXIT_OK;
    if (rc != TC_OK) {
        tc_app_error("kernels: out of memory");
        code = TC_EXIT_RUNTIME;
    } else if (a->json) {
        code = tc_app_emit_json("kernels", tc_report_kernels_json(&d));
    } else {
        tc_report_kernels_print(stdout, &d);
    }
    tc_kernels_compare_free(&c);
    tc_kernels_profile_free(&p[0]);
    tc_kernels_profile_free(&p[1]);
    return code;
}

int tc_app_kernels(tc_app_kernels_args *a)
{
    tc_kernel_files f;
    char err[1024];
    tc_err rc = tc_kernels_files_load(a->files[0], a->files[1], a->rules, &f, err, sizeof err);
    int code;
    if (rc != TC_OK) {
        tc_app_error("kernels: %s", err);
        code = tc_app_exit_for(rc);
    } else {
        code = report(&f, a);
    }
    tc_kernels_files_free(&f);
    return code;
}
