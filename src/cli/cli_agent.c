/* truecost agent: parse options, start the exporter, say where it listens
 * and whether it wants a token, serve until Ctrl-C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "cli.h"
#include "cli_opts.h"
#include "core/tc_outfile.h"

typedef struct agent_args {
    tc_agent_config cfg;
    char *host_owned;
    const char *port_file, *token_env;
    long long interval_ms;
} agent_args;

static int opt_listen(const char *val, void *ctx)
{
    agent_args *a = ctx;
    free(a->host_owned);
    a->host_owned = NULL;
    return tc_cli_listen(val, &a->host_owned, &a->cfg.host, &a->cfg.port);
}

static int parse(int argc, char **argv, agent_args *a)
{
    memset(a, 0, sizeof *a);
    a->cfg.host = "127.0.0.1";
    a->cfg.port = 9464;
    a->cfg.telemetry = "auto";
    a->cfg.handle_signals = 1;
    a->interval_ms = 500;
    tc_telem_config *t = &a->cfg.telem;
    const tc_cli_opt opts[] = {
        TC_OPT_C("listen", 0, opt_listen, 1),
        TC_OPT_S("port-file", 0, &a->port_file),
        TC_OPT_I("interval", 0, &a->interval_ms, 50, 3600000),
        TC_OPT_S("token-env", 0, &a->token_env),
        TC_OPT_S("backend", 0, &a->cfg.telemetry),
        TC_OPT_TELEM_SOURCES(t),
        TC_OPT_END,
    };
    if (tc_cli_parse("agent", argc, argv, opts, a, NULL, 0, NULL) < 0)
        return -1;
    a->cfg.interval_ms = (int)a->interval_ms;
    if (a->token_env) {
        a->cfg.token = getenv(a->token_env);
        if (!a->cfg.token || !*a->cfg.token) {
            tc_app_error("agent: --token-env %s: the variable is not set or empty", a->token_env);
            return -1;
        }
    }
    return 0;
}

static void banner(const tc_agent *ag, const agent_args *a, const char *notes)
{
    int v6 = strchr(a->cfg.host, ':') != NULL;
    printf("truecost agent: serving http://%s%s%s:%u/metrics, /env and /health; sampling every "
           "%d ms\n",
           v6 ? "[" : "", a->cfg.host, v6 ? "]" : "", (unsigned)tc_agent_port(ag),
           a->cfg.interval_ms);
    if (a->cfg.token)
        printf("  /metrics and /env require 'Authorization: Bearer' with the token in $%s "
               "(/health does not)\n",
               a->token_env);
    else
        printf("  no token: loopback only (a non-loopback --listen needs --token-env VAR)\n");
    printf("  devices: %d\n", tc_agent_devices(ag));
    if (tc_agent_devices(ag) == 0)
        fprintf(stderr,
                "truecost: agent: no GPU or CPU energy sensor found; serving /env and "
                "truecost_build_info only:\n%s",
                notes);
    printf("  Ctrl-C stops it.\n");
    fflush(stdout);
}

static int start(agent_args *a)
{
    char notes[2048], err[512];
    tc_agent *ag = NULL;
    tc_err rc = tc_agent_new(&a->cfg, &ag, notes, sizeof notes, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("agent: %s", err);
        return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    char port[16];
    snprintf(port, sizeof port, "%u\n", (unsigned)tc_agent_port(ag));
    if (a->port_file && tc_outfile_write(a->port_file, port, err, sizeof err) != TC_OK) {
        tc_app_error("--port-file %s", err);
        tc_agent_free(ag);
        return TC_EXIT_RUNTIME;
    }
    banner(ag, a, notes);
    int result = tc_agent_run(ag);
    fprintf(stderr, "truecost agent: stopped after %llu requests\n",
            (unsigned long long)tc_agent_requests(ag));
    tc_agent_free(ag);
    return result < 0 ? TC_EXIT_RUNTIME : TC_EXIT_OK;
}

int tc_cmd_agent(int argc, char **argv)
{
    agent_args a;
    int bad = parse(argc, argv, &a) < 0, rc = TC_EXIT_OK;
    if (bad)
        rc = tc_cli_usage_hint("agent");
    else
        rc = start(&a);
    free(a.host_owned);
    return rc;
}
