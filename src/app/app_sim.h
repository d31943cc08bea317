/* truecost sim's work: its options, and the simulator served. */
#ifndef TC_APP_SIM_H
#define TC_APP_SIM_H

#include "core/tc_outfile.h"
#include "sim/sim_limits.h"
#include "sim/sim_server.h"

typedef struct tc_app_sim_args {
    tc_sim_config cfg;
    char *host_owned;
    const char *port_file;
    long long max_batch, max_body, eos_after, leak_kb, close_after;
} tc_app_sim_args;

/* The simulator served until stopped; the exit status. */
int tc_app_sim(tc_app_sim_args *a);

#endif
