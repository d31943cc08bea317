/* truecost agent's work: start the exporter, say where it listens and whether it wants a
 * token, serve until Ctrl-C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_agent.h"
#include "agent/agent.h"

static void banner(const tc_agent *ag, const tc_app_agent_args *a, const char *notes)
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

int tc_app_agent(tc_app_agent_args *a)
{
    char notes[2048], err[512];
    tc_agent *ag = NULL;
    tc_err rc = tc_agent_new(&a->cfg, &ag, notes, sizeof notes, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("agent: %s", err);
        return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    if (tc_app_write_port_file(a->port_file, (unsigned)tc_agent_port(ag))) {
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
