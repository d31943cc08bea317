/* truecost gaps's work: PyTorch operator tables read and the operator gaps found. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/app_gaps.h"
#include "assess/gaps_doc.h"
#include "report/report_gaps.h"

/* Builds the table of the files and prints it. */
static int report(const tc_gap_files *f, const tc_app_gaps_args *a)
{
    tc_gap_table t;
    if (tc_gaps_build(&f->inv, &f->sup, a->risks ? &f->risks : NULL, &t) != TC_OK) {
        tc_app_error("gaps: out of memory building the table");
        return TC_EXIT_RUNTIME;
    }
    int code = 0;
    if (a->json)
        code = tc_app_emit_json("gaps", tc_gaps_json(&f->inv, &t, a->ops, a->support, a->risks));
    else
        tc_report_gaps_print(stdout, &f->inv, &t, a->ops, a->support);
    tc_gaps_table_free(&t);
    return code;
}

int tc_app_gaps(tc_app_gaps_args *a)
{
    tc_gap_files f;
    char err[1024];
    tc_err rc = tc_gaps_files_load(a->ops, a->support, a->risks, a->dtype, &f, err, sizeof err);
    int code;
    if (rc != TC_OK) {
        tc_app_error("%s", err);
        code = tc_app_exit_for(rc);
    } else {
        code = report(&f, a);
    }
    tc_gaps_files_free(&f);
    return code;
}
