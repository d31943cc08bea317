/* Help, handled once for every command: `truecost --help`, `truecost CMD
 * --help` (anywhere before "--"), `truecost help [CMD]`, and what the man
 * page and the completion are made from: `help --list` (the commands),
 * `help --options CMD` (its options and what each takes, read from its
 * --help text) and `help --completion` (the bash completion script). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/tc_help.h"
#include "tc_version.h"

int tc_cli_help(const char *cmd, FILE *out)
{
    size_t len;
    char *text = tc_help_expanded(cmd, &len);
    int ok = text && fwrite(text, 1, len, out) == len;
    free(text);
    if (ok)
        return TC_EXIT_OK;
    tc_app_error("no help for '%s'", cmd);
    return TC_EXIT_RUNTIME;
}

void tc_cli_print_version(void)
{
    if (TC_VERSION_GIT[0])
        printf("truecost %s (%s)\n", TC_VERSION, TC_VERSION_GIT);
    else
        printf("truecost %s\n", TC_VERSION);
}

void tc_cli_print_usage(FILE *out)
{
    fputs("Usage: truecost COMMAND [OPTIONS]\n"
          "\n"
          "Measure what an AI inference platform really costs: drive a running inference\n"
          "server with a fixed workload, measure latency, throughput and energy, and price it.\n"
          "\n"
          "Commands:\n",
          out);
    for (int i = 0; i < tc_cli_n_commands; i++)
        fprintf(out, "  %-10s %s\n", tc_cli_commands[i].name, tc_cli_commands[i].summary);
    fputs("  help CMD   show the options of CMD\n"
          "  help method  what the figures mean (TTFT, ITL, TPOT, window, goodput, cost)\n"
          "\n"
          "Options:\n"
          "  -h, --help     show this help\n"
          "  -V, --version  show the version\n"
          "\n"
          "Run 'truecost COMMAND --help' for the options of one command.\n",
          out);
}

int tc_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

#define MAX_HELP_OPTS 96

/* ---- truecost help ------------------------------------------------------ */

static int list_options(const char *cmd)
{
    tc_usage_opt o[MAX_HELP_OPTS];
    int n = tc_cli_find_command(cmd) ? tc_help_options(cmd, o, MAX_HELP_OPTS) : -1;
    if (n < 0) {
        tc_app_error("help --options: no command '%s' (see 'truecost help --list')", cmd);
        return TC_EXIT_USAGE;
    }
    for (int i = 0; i < n; i++)
        printf("%s\t%s\n", o[i].name, tc_usage_kind_name(o[i].kind));
    return TC_EXIT_OK;
}

int tc_cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        tc_cli_print_usage(stdout);
        return TC_EXIT_OK;
    }
    if (strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < tc_cli_n_commands; i++)
            printf("%s\t%s\n", tc_cli_commands[i].name, tc_cli_commands[i].summary);
        return TC_EXIT_OK;
    }
    if (strcmp(argv[1], "--options") == 0 && argc == 3)
        return list_options(argv[2]);
    if (strcmp(argv[1], "--completion") == 0)
        return tc_cli_completion(stdout);
    if (strcmp(argv[1], "method") == 0 && argc == 2)
        return tc_cli_help("method", stdout); /* a topic: what the figures mean */
    const tc_cmd *cmd = tc_cli_find_command(argv[1]);
    if (!cmd || argc > 2)
        return tc_cli_unknown_command(argv[1]);
    return tc_cli_help(cmd->name, stdout);
}
