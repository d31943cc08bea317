/* truecost lockin's work: the one-time cost of moving ecosystems, from an assessment and
 * the evidence the options name. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/app_lockin.h"
#include "assess/lockin.h"
#include "app/app_evidence.h"
#include "report/report_lockin.h"

/* Evaluates the assessment with the evidence and prints it. */
static int report(const tc_app_lockin_args *a, const tc_lockin *as)
{
    tc_lockin_result r;
    char err[512];
    tc_err rc =
        tc_lockin_evaluate(as, &a->o, (size_t)a->samples, (uint64_t)a->seed, &r, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("lockin: %s", err);
        return rc == TC_ERR_NOMEM ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
    }
    int code = TC_EXIT_OK;
    if (a->json)
        code = tc_app_emit_json("lockin", tc_report_lockin_json(&r, &a->o));
    else
        tc_report_lockin_print(stdout, &r, &a->o);
    tc_lockin_result_free(&r);
    return code;
}

int tc_app_lockin(tc_app_lockin_args *a)
{
    tc_lockin as;
    tc_evidence ev;
    int code = tc_app_evidence_read(a->file, &a->ev, &as, &ev, &a->o);
    return code ? code : report(a, &as);
}
