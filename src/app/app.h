/* app/: each command's work, from its settled options to what it prints
 * and the exit status it ends with. The CLI (src/cli) turns argv into
 * those options and calls here; what is shared by every command's work is
 * this header: the exit statuses, the message helpers, the store, the
 * stop signals and the command line kept for the record. */
#ifndef TC_APP_H
#define TC_APP_H

#include <signal.h>
#include <stdio.h>

#include <jansson.h>

#include "core/tc_error.h"
#include "record/record.h"
#include "analysis/cost_profile.h"
#include "report/report_show.h"
#include "store/store.h"

/* The exit statuses of every command, the one table of them. */
enum {
    TC_EXIT_OK = 0,
    TC_EXIT_USAGE = 1,     /* bad command line or input file */
    TC_EXIT_RUNTIME = 2,   /* could not do the job (bind, file, endpoint, database) */
    TC_EXIT_CHECK = 3,     /* done, but a check failed (error rate, environments differ) */
    TC_EXIT_SIGINT = 130,  /* interrupted by Ctrl-C: 128 + SIGINT */
    TC_EXIT_SIGTERM = 143, /* stopped by SIGTERM: 128 + SIGTERM */
};

/* "truecost: <message>\n" on stderr. */
void tc_app_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints doc on stdout as indented JSON and drops the reference. A NULL
 * doc (out of memory building it) or a failed write is said on stderr as
 * "truecost: CMD: <why>"; returns TC_EXIT_OK or TC_EXIT_RUNTIME. */
int tc_app_emit_json(const char *cmd, json_t *doc);

/* 0 when rc is TC_OK; else prints "truecost: <err>" and returns
 * TC_EXIT_RUNTIME. For library calls whose failure ends the command. */
int tc_app_check(tc_err rc, const char *err);

/* The exit status for a failure to read an input: TC_EXIT_RUNTIME when it
 * could not be had (a file or store that cannot be read, no memory, a run
 * not found, a busy database), TC_EXIT_USAGE when its content is bad. */
int tc_app_exit_for(tc_err rc);

/* Loads the cost profile at path into *p (path NULL: nothing, 0). On a
 * bad or missing file prints why and returns TC_EXIT_USAGE; else 0. */
int tc_app_load_profile(const char *path, tc_cost_profile *p);

/* Writes "PORT\n" to path (NULL: nothing) for the tests and scripts that
 * start a server on port 0 (sim, agent). 0, or TC_EXIT_RUNTIME after
 * saying why. */
int tc_app_write_port_file(const char *path, unsigned port);

/* Opens the database named by --db (NULL: the default path). On failure
 * prints why and returns TC_EXIT_RUNTIME; else 0. */
int tc_app_open_store(const char *db, tc_store_mode mode, tc_store **out);

/* A result shown (report_show.h) on stdout in `form`; its notes said. The
 * exit status: 0 or TC_EXIT_RUNTIME (said). */
tc_show tc_app_show_on(tc_show_form form);
int tc_app_shown(tc_err rc, const tc_show *s, const char *err);

/* A run shown (show, and run when it ends): TC_EXIT_CHECK, said, when
 * more of its measured requests failed than max_error_rate (> 1: never). */
int tc_app_show_run(tc_store *st, const tc_run_info *run, tc_show_form form, double max_error_rate,
                    const tc_slo *slo);

/* A group of repeats, shown. */
int tc_app_show_group(tc_store *st, const tc_runset *set, int json);

/* The process's command line ("truecost run ..."), kept by main before a
 * command reorders its arguments: shell-quoted where needed, a URL's
 * password as "***" (app_command.c). "" until set. */
void tc_app_set_command_line(int argc, char **argv);
const char *tc_app_command_line(void);
/* 1 unless the line had to be cut to fit (it then cannot be taken back). */
int tc_app_command_line_whole(void);

/* The signal that asked a measurement to stop (SIGINT, SIGTERM), 0 none;
 * set by the handlers tc_app_install_stop_signals installs (a second
 * signal ends the process at once). tc_app_signal_exit: the exit status
 * for it (app_signals.c). */
extern volatile sig_atomic_t tc_app_stop_requested;
void tc_app_install_stop_signals(void);
/* The same, but a second signal sets *second instead of exiting (train:
 * its trainer must still be killed and what was read saved). */
void tc_app_install_stop_signals_then(volatile sig_atomic_t *second);
int tc_app_signal_exit(void);

#endif
