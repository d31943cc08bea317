/* The command-line tool: one file per subcommand (cli_<name>.c), a table
 * in main.c, and the shared message and argument helpers here. */
#ifndef TC_CLI_H
#define TC_CLI_H

#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "core/tc_usage.h"

#include <jansson.h>

#include "app/app.h"
#include "core/tc_error.h"
#include "telemetry/telem.h"

typedef struct tc_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} tc_cmd;

/* The commands, in the order `truecost --help` lists them (cli_commands.c:
 * the one list), and the one named name (NULL: none). */
extern const tc_cmd tc_cli_commands[];
extern const int tc_cli_n_commands;
const tc_cmd *tc_cli_find_command(const char *name);

/* "unknown command 'name'" with a guess, on stderr; TC_EXIT_USAGE. */
int tc_cli_unknown_command(const char *name);

/* ---- help (cli_help.c, cli_completion.c) ---- */

/* Prints the --help text of subcommand `cmd` on out: docs/help/CMD.txt,
 * compiled in (the man page shows the same text). Returns TC_EXIT_OK, or
 * TC_EXIT_RUNTIME when there is none. */
int tc_cli_help(const char *cmd, FILE *out);

/* truecost's own usage (the command list) and version. */
void tc_cli_print_usage(FILE *out);
void tc_cli_print_version(void);

/* 1 when a command's argv asks for its help: -h or --help before "--".
 * main answers it for every command, so no command parses it. */
int tc_cli_wants_help(int argc, char **argv);

/* The bash completion script on out; an exit status. */
int tc_cli_completion(FILE *out);

/* truecost help [CMD | --list | --options CMD | --completion]. */
int tc_cmd_help(int argc, char **argv);

/* Prints "try 'truecost CMD --help'" after a usage error; returns
 * TC_EXIT_USAGE. */
int tc_cli_usage_hint(const char *cmd);

/* Parse a whole option value; on error print "truecost: OPT: 'TEXT' ..."
 * naming the accepted range and return -1. */
int tc_cli_double(const char *opt, const char *text, double min, double max, double *out);
int tc_cli_int(const char *opt, const char *text, long long min, long long max, long long *out);

/* --listen: tc_listen_parse (core/tc_suggest.h); 0, or -1 after printing
 * the error. */
int tc_cli_listen(const char *text, char **owned, const char **host, uint16_t *port);

/* The subcommands, one cli_<name>.c each (main.c's table): each takes
 * argv[0] = the subcommand's name and returns an exit status. */
int tc_cmd_run(int argc, char **argv);
int tc_cmd_sweep(int argc, char **argv);
int tc_cmd_soak(int argc, char **argv);
int tc_cmd_train(int argc, char **argv);
/* truecost sim train (cli_sim_train.c), argv[0] = "train". */
int tc_cli_sim_train(int argc, char **argv);
int tc_cmd_frontier(int argc, char **argv);
int tc_cmd_report(int argc, char **argv);
int tc_cmd_runs(int argc, char **argv);
int tc_cmd_show(int argc, char **argv);
int tc_cmd_export(int argc, char **argv);
int tc_cmd_import(int argc, char **argv);
int tc_cmd_cost(int argc, char **argv);
int tc_cmd_compare(int argc, char **argv);
int tc_cmd_roofline(int argc, char **argv);
int tc_cmd_gaps(int argc, char **argv);
int tc_cmd_kernels(int argc, char **argv);
int tc_cmd_fit(int argc, char **argv);
int tc_cmd_lockin(int argc, char **argv);
int tc_cmd_decide(int argc, char **argv);
int tc_cmd_monitor(int argc, char **argv);
int tc_cmd_doctor(int argc, char **argv);
int tc_cmd_env(int argc, char **argv);
int tc_cmd_agent(int argc, char **argv);
int tc_cmd_sim(int argc, char **argv);

#endif
