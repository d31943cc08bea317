/* Ctrl-C and SIGTERM for the commands that measure (run, sweep, soak):
 * the first asks the measurement to stop cleanly, keeping what it stored;
 * a second ends the process at once (what was stored stays stored). */
#include "app/app.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t tc_app_stop_requested;
static volatile sig_atomic_t *second_signal; /* NULL: a second one exits */

static void on_interrupt(int sig)
{
    if (!tc_app_stop_requested)
        tc_app_stop_requested = sig;
    else if (second_signal)
        *second_signal = 1;
    else
        _exit(128 + sig);
}

void tc_app_install_stop_signals_then(volatile sig_atomic_t *second)
{
    second_signal = second;
    tc_app_install_stop_signals();
}

void tc_app_install_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int tc_app_signal_exit(void)
{
    return tc_app_stop_requested == SIGTERM ? TC_EXIT_SIGTERM : TC_EXIT_SIGINT;
}
