/* truecost doctor: runs the checks and prints each with its evidence and
 * fix, as text or JSON; the exit status is the worst result. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "doctor/doctor.h"
#include "report/report_doctor.h"

#define MAX_URLS 8

typedef struct doc_args {
    int json;
    tc_doctor_config cfg;
    const char *urls[MAX_URLS + 1]; /* URL arguments, NULL-ended */
} doc_args;

static int parse(int argc, char **argv, doc_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_JSON(&a->json),
        TC_OPT_S("root", 0, &a->cfg.root),
        TC_OPT_F("no-server", 0, &a->cfg.no_server),
        TC_OPT_S("user", 0, &a->cfg.user),
        TC_OPT_S("nvml-lib", 0, &a->cfg.nvml_lib),
        TC_OPT_S("rocm-lib", 0, &a->cfg.rocm_lib),
        TC_OPT_END,
    };
    int n = tc_cli_parse("doctor", argc, argv, opts, NULL, a->urls, MAX_URLS, NULL);
    if (n > 0) /* servers on other ports than the usual ones: checked instead of them */
        a->cfg.server_urls = a->urls;
    return n < 0 ? -1 : 0;
}

int tc_cmd_doctor(int argc, char **argv)
{
    doc_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("doctor");
    tc_doctor_report *r = malloc(sizeof *r); /* large: not on the stack */
    char err[512];
    if (!r) {
        tc_app_error("doctor: out of memory");
        return TC_EXIT_RUNTIME;
    }
    int code = TC_EXIT_RUNTIME;
    if (tc_doctor_run(&a.cfg, r, err, sizeof err) != TC_OK) {
        tc_app_error("doctor: %s", err);
    } else if (a.json) {
        code = tc_app_emit_json("doctor", tc_report_doctor_json(r));
    } else {
        tc_report_doctor_text(stdout, r);
        code = TC_EXIT_OK;
    }
    if (code == TC_EXIT_OK)
        code = r->status; /* 0 every check ok, 1 warnings, 2 a failure */
    free(r);
    return code;
}
