/* truecost kernels: reads one or two profiler kernel tables (incumbent,
 * alternative), prints the time per class, the largest non-GEMM kernels,
 * attention fallbacks and, for two, the matched kernels and the suggested
 * tuning list with its person-days. */

#include <stdio.h>
#include <string.h>

#include "assess/kernels.h"
#include "cli.h"
#include "cli_opts.h"
#include "report/report_kernels.h"

#define TOP_DEFAULT 10
#define TOP_MAX 1000

typedef struct kernels_args {
    const char *files[2], *rules;
    long long top;
    int json, n;
} kernels_args;

static int parse_args(int argc, char **argv, kernels_args *a)
{
    memset(a, 0, sizeof *a);
    a->top = TOP_DEFAULT;
    const tc_cli_opt opts[] = {
        TC_OPT_I("top", 0, &a->top, 1, TOP_MAX),
        TC_OPT_S("rules", 0, &a->rules),
        TC_OPT_JSON(&a->json),
        TC_OPT_END,
    };
    a->n = tc_cli_parse("kernels", argc, argv, opts, NULL, a->files, 2,
                        " (give one kernel table, or two: incumbent, alternative)");
    if (a->n < 0)
        return -1;
    if (a->n == 0) {
        tc_app_error("kernels: a kernel table is required (FILE, or FILE FILE_B to compare an "
                     "incumbent with an alternative)");
        return -1;
    }
    return 0;
}

/* Profiles the tables of f, compares two, and prints the document. */
static int report(const tc_kernel_files *f, const kernels_args *a)
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

int tc_cmd_kernels(int argc, char **argv)
{
    kernels_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("kernels");
    tc_kernel_files f;
    char err[1024];
    tc_err rc = tc_kernels_files_load(a.files[0], a.files[1], a.rules, &f, err, sizeof err);
    int code;
    if (rc != TC_OK) {
        tc_app_error("kernels: %s", err);
        code = rc == TC_ERR_IO || rc == TC_ERR_NOMEM ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
    } else {
        code = report(&f, &a);
    }
    tc_kernels_files_free(&f);
    return code;
}
