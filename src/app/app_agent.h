/* truecost agent's work: its options, and the exporter served. */
#ifndef TC_APP_AGENT_H
#define TC_APP_AGENT_H

#include "agent/agent.h"
#include "core/tc_outfile.h"

typedef struct tc_app_agent_args {
    tc_agent_config cfg;
    char *host_owned;
    const char *port_file, *token_env;
    long long interval_ms;
} tc_app_agent_args;

/* The exporter started and served until a signal stops it; the exit status. */
int tc_app_agent(tc_app_agent_args *a);

#endif
