/* truecost lockin's work: its options, and the result printed. */
#ifndef TC_APP_LOCKIN_H
#define TC_APP_LOCKIN_H

#include "assess/lockin.h"
#include "app/app_evidence.h"

typedef struct tc_app_lockin_args {
    const char *file;
    long long samples, seed;
    int json;
    tc_lockin_overrides o;
    tc_app_evidence_opts ev;
} tc_app_lockin_args;

/* The lock-in cost a asks printed (JSON with a->json); the exit status. */
int tc_app_lockin(tc_app_lockin_args *a);

#endif
