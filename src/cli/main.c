/* truecost: what an AI inference platform really costs. Dispatches to the
 * subcommand named first on the command line (cli_commands.c), answering
 * every command's --help here. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "cli.h"
#include "core/tc_help.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        tc_cli_print_usage(stderr);
        return TC_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        tc_cli_print_usage(stdout);
        return TC_EXIT_OK;
    }
    if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        tc_cli_print_version();
        return TC_EXIT_OK;
    }
    if (strcmp(name, "help") == 0)
        return tc_cmd_help(argc - 1, argv + 1);
    if (name[0] == '-') {
        tc_app_error("unknown option '%s'", name);
        fputs("Run 'truecost --help' for the usage.\n", stderr);
        return TC_EXIT_USAGE;
    }
    const tc_cmd *cmd = tc_cli_find_command(name);
    if (!cmd)
        return tc_cli_unknown_command(name);
    if (tc_cli_wants_help(argc - 1, argv + 1))
        return tc_cli_help(tc_help_name(cmd->name, argc > 2 ? argv[2] : NULL), stdout);
    /* A file size limit (ulimit -f) makes a write fail with EFBIG, said and
     * cleaned up, rather than killing truecost half way through a file. */
    signal(SIGXFSZ, SIG_IGN);
    tc_app_set_command_line(argc, argv); /* before getopt reorders argv */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int code = cmd->run(argc - 1, argv + 1);
    curl_global_cleanup();
    return code;
}
