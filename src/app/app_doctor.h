/* truecost doctor's work: its options, and the result printed. */
#ifndef TC_APP_DOCTOR_H
#define TC_APP_DOCTOR_H

#include "doctor/doctor.h"

#define TC_APP_DOCTOR_MAX_URLS 8

typedef struct tc_app_doctor_args {
    int json;
    tc_doctor_config cfg;
    const char *urls[TC_APP_DOCTOR_MAX_URLS + 1]; /* URL arguments, NULL-ended */
} tc_app_doctor_args;

/* The checks run and printed; the exit status. */
int tc_app_doctor(tc_app_doctor_args *a);

#endif
