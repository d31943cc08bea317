/* truecost decide's work: its options, and the result printed. */
#ifndef TC_APP_DECIDE_H
#define TC_APP_DECIDE_H

#include "assess/decide.h"
#include "app/app_evidence.h"

typedef struct tc_app_decide_args {
    const char *file;
    long long samples, seed;
    int json;
    tc_app_evidence_opts ev;
} tc_app_decide_args;

/* The decision printed (JSON with a->json); the exit status. */
int tc_app_decide(tc_app_decide_args *a);

#endif
