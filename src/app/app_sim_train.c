/* truecost sim train's work: the SIMULATED trainer run (sim/sim_train.h),
 * stopped by a signal as a trainer is, or ignoring it as asked. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_sim.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    stop = sig;
}

/* A crash as a crash: the process dies of SIGSEGV (no core file). */
static void crash(void)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    fflush(NULL);
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    _exit(139);
}

int tc_app_sim_train(const tc_sim_train_config *c)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = c->ignore_stop ? SIG_IGN : on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fprintf(stderr, "truecost sim train: SIMULATED trainer, %lld steps of %g ms (format %s)%s\n",
            (long long)c->steps, c->step_ms, c->format,
            c->ignore_stop ? ", ignoring SIGINT/SIGTERM" : "");
    fflush(stderr);
    tc_sim_train_end end;
    int64_t last;
    char err[512];
    if (tc_sim_train_run(c, stdout, stderr, &stop, &end, &last, err, sizeof err) != TC_OK) {
        tc_app_error("sim train: %s", err);
        return TC_EXIT_RUNTIME;
    }
    switch (end) {
    case TC_SIM_TRAIN_OOM:
        return 1;
    case TC_SIM_TRAIN_CRASH:
        crash();
        return TC_EXIT_RUNTIME;
    case TC_SIM_TRAIN_STOPPED:
        fprintf(stderr, "truecost sim train: stopped by signal %d after step %lld (SIMULATED)\n",
                (int)stop, (long long)last);
        return 128 + (int)stop;
    default:
        fprintf(stderr, "truecost sim train: %lld steps done (SIMULATED)\n", (long long)last);
        return TC_EXIT_OK;
    }
}
