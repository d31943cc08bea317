/* truecost kernels' work: its options, and the result printed. */
#ifndef TC_APP_KERNELS_H
#define TC_APP_KERNELS_H

#include "assess/kernels.h"

typedef struct tc_app_kernels_args {
    const char *files[2], *rules;
    long long top;
    int json, n;
} tc_app_kernels_args;

/* The kernel tables read and their comparison printed; the exit status. */
int tc_app_kernels(tc_app_kernels_args *a);

#endif
