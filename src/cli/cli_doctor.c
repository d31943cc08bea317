/* truecost doctor: runs the checks and prints each with its evidence and
 * fix, as text or JSON; the exit status is the worst result. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "app/app_doctor.h"
#include "cli_opts.h"
#include "doctor/doctor.h"
#include "report/report_doctor.h"

static int parse(int argc, char **argv, tc_app_doctor_args *a)
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
    int n = tc_cli_parse("doctor", argc, argv, opts, NULL, a->urls, TC_APP_DOCTOR_MAX_URLS, NULL);
    if (n > 0) /* servers on other ports than the usual ones: checked instead of them */
        a->cfg.server_urls = a->urls;
    return n < 0 ? -1 : 0;
}

int tc_cmd_doctor(int argc, char **argv)
{
    tc_app_doctor_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("doctor");
    return tc_app_doctor(&a);
}
