/* truecost sim's work: the simulated inference server started, its banner printed, served
 * until stopped (or crashed, as asked), its counts said. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_sim.h"
#include "sim/sim_limits.h"
#include "sim/sim_server.h"

static void print_warning(void *arg, const char *message)
{
    (void)arg;
    tc_app_error("sim: %s", message);
}

/* crash-after: the truth file still gets one line per request (those in
 * flight say "crashed"), then the process ends without any cleanup, as a
 * crash would: in-flight streams are cut. */
static void crash(tc_sim_server *srv, long long after)
{
    tc_sim_server_write_inflight_truth(srv, "crashed");
    fprintf(stderr, "truecost sim: crash-after:%lld reached: exiting abruptly (SIMULATED crash)\n",
            after);
    fflush(NULL);
    _exit(3);
}

int tc_app_sim(tc_app_sim_args *a)
{
    char err[512];
    tc_sim_server *srv = NULL;
    tc_sim_raise_open_files();
    a->cfg.warn = print_warning;
    if (tc_sim_server_new(&a->cfg, &srv, err, sizeof err) != TC_OK) {
        tc_app_error("sim: %s", err);
        return TC_EXIT_RUNTIME;
    }
    if (tc_app_write_port_file(a->port_file, (unsigned)tc_sim_server_port(srv))) {
        tc_sim_server_free(srv);
        return TC_EXIT_RUNTIME;
    }
    tc_sim_banner(stdout, srv, &a->cfg);
    int result = tc_sim_server_run(srv);
    tc_sim_stats st;
    tc_sim_server_stats(srv, &st);
    if (result == 1)
        crash(srv, (long long)a->cfg.faults.crash_after);
    tc_sim_stop_report(stderr, &st);
    tc_sim_server_free(srv);
    return result < 0 ? TC_EXIT_RUNTIME : TC_EXIT_OK;
}
