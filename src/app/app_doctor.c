/* truecost doctor's work: the driver and runtime checks, printed. */
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_doctor.h"
#include "doctor/doctor.h"
#include "report/report_doctor.h"

int tc_app_doctor(tc_app_doctor_args *a)
{
    tc_doctor_report *r = malloc(sizeof *r); /* large: not on the stack */
    char err[512];
    if (!r) {
        tc_app_error("doctor: out of memory");
        return TC_EXIT_RUNTIME;
    }
    int code = TC_EXIT_RUNTIME;
    if (tc_doctor_run(&a->cfg, r, err, sizeof err) != TC_OK) {
        tc_app_error("doctor: %s", err);
    } else if (a->json) {
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
