/* truecost agent: parse options, start the exporter, say where it listens
 * and whether it wants a token, serve until Ctrl-C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "cli.h"
#include "app/app_agent.h"
#include "cli_opts.h"
#include "core/tc_outfile.h"

static int opt_listen(const char *val, void *ctx)
{
    tc_app_agent_args *a = ctx;
    free(a->host_owned);
    a->host_owned = NULL;
    return tc_cli_listen(val, &a->host_owned, &a->cfg.host, &a->cfg.port);
}

static int parse(int argc, char **argv, tc_app_agent_args *a)
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

int tc_cmd_agent(int argc, char **argv)
{
    tc_app_agent_args a;
    int bad = parse(argc, argv, &a) < 0, rc = TC_EXIT_OK;
    if (bad)
        rc = tc_cli_usage_hint("agent");
    else
        rc = tc_app_agent(&a);
    free(a.host_owned);
    return rc;
}
