/* truecost gaps's work: its options, and the result printed. */
#ifndef TC_APP_GAPS_H
#define TC_APP_GAPS_H

#include "assess/gaps_doc.h"

typedef struct tc_app_gaps_args {
    const char *ops, *support, *risks, *dtype;
    int json;
} tc_app_gaps_args;

/* The gaps printed (JSON with a->json); the exit status. */
int tc_app_gaps(tc_app_gaps_args *a);

#endif
