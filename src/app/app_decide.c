/* truecost decide's work: the decision, its checklist and reasons, from an assessment and
 * the evidence the options name. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/app_decide.h"
#include "assess/decide.h"
#include "app/app_evidence.h"
#include "report/report_decide.h"

/* Weighs the evidence with the lock-in distribution, decides and prints. */
static int report(const tc_app_decide_args *a, const tc_lockin *as, const tc_evidence *ev,
                  const tc_lockin_overrides *o)
{
    tc_lockin_result r;
    tc_decide_result d;
    char err[512];
    if (tc_evidence_decide(as, ev, o, (size_t)a->samples, (uint64_t)a->seed, &r, &d, err,
                           sizeof err) != TC_OK) {
        tc_app_error("decide: %s", err);
        return TC_EXIT_USAGE;
    }
    int code = 0;
    if (a->json)
        code = tc_app_emit_json("decide", tc_report_decide_json(&r, &d, o->simulated));
    else
        tc_report_decide_print(stdout, &r, &d, o->simulated);
    tc_lockin_result_free(&r);
    return code;
}

int tc_app_decide(tc_app_decide_args *a)
{
    tc_lockin as;
    tc_evidence ev;
    tc_lockin_overrides o = {0};
    int code = tc_app_evidence_read(a->file, &a->ev, &as, &ev, &o);
    return code ? code : report(a, &as, &ev, &o);
}
