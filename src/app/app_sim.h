/* truecost sim's work: its options, and the simulator served. */
#ifndef TC_APP_SIM_H
#define TC_APP_SIM_H

#include "sim/sim_train.h"

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

/* The SIMULATED trainer of `sim train`, as c sets it: its steps printed;
 * the exit status a trainer's would be (1 out of memory, a crash as a
 * crash, 128 + the signal that stopped it). */
int tc_app_sim_train(const tc_sim_train_config *c);

#endif
