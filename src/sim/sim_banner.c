/* What `truecost sim` says when it starts and stops (sim_server.h). */
#include <stdio.h>
#include <string.h>

#include "sim/sim_server.h"

void tc_sim_banner(FILE *out, const tc_sim_server *srv, const tc_sim_config *c)
{
    int v6 = strchr(c->host, ':') != NULL; /* an IPv6 address goes in brackets in a URL */
    fprintf(out, "truecost sim: SIMULATED inference server listening on http://%s%s%s:%u\n",
            v6 ? "[" : "", c->host, v6 ? "]" : "", (unsigned)tc_sim_server_port(srv));
    fprintf(out, "  models:");
    if (c->n_models == 0)
        fprintf(out, " %s", TC_SIM_DEFAULT_MODEL);
    for (int i = 0; i < c->n_models; i++)
        fprintf(out, " %s", c->models[i]);
    fprintf(out,
            "\n  timing: TTFT %g ms + prompt tokens / %g per s (at least the prefill and one "
            "decode step); decode %g tokens/s per stream, batch %d (slowdown %g per further "
            "stream), jitter %g ms; seed %llu\n",
            c->timing.ttft_ms, c->timing.prefill_tps, c->timing.decode_tps, c->timing.max_batch,
            c->timing.batch_slowdown, c->timing.jitter_ms, (unsigned long long)c->seed);
    if (c->timing.drift_pct_per_min > 0 || c->leak_kb_per_request)
        fprintf(out,
                "  degrading: decode rate -%g%% of %g per minute (at least 5%% of it); %d KiB kept "
                "per finished request\n",
                c->timing.drift_pct_per_min, c->timing.decode_tps, c->leak_kb_per_request);
    fprintf(out, "  prompt tokens: %g per word + 1 (BOS), + 4 per chat message; ",
            c->tokens_per_word);
    if (c->eos_after)
        fprintf(out, "EOS after %d tokens unless the request asks to ignore it\n", c->eos_after);
    else
        fprintf(out, "no EOS: every reply fills its token limit\n");
    fprintf(out, "  faults:");
    if (c->faults.count == 0 && !c->faults.crash_after)
        fprintf(out, " none");
    for (int i = 0; i < c->faults.count; i++) {
        const tc_sim_fault_rule *r = &c->faults.rules[i];
        fprintf(out, " %s:%g", tc_sim_fault_name(r->kind), r->rate);
        if (r->kind == TC_FAULT_STALL || r->kind == TC_FAULT_SLOW_ACCEPT)
            fprintf(out, ":%lld", (long long)r->arg); /* the ms: a banner shows the whole plan */
    }
    if (c->faults.crash_after)
        fprintf(out, " crash-after:%lld", (long long)c->faults.crash_after);
    fprintf(out, "\n  Ctrl-C stops it.\n");
    fflush(out);
}

void tc_sim_stop_report(FILE *out, const tc_sim_stats *st)
{
    fprintf(out, "truecost sim: stopped after %llu requests, %llu tokens (SIMULATED)\n",
            (unsigned long long)st->requests, (unsigned long long)st->tokens);
    if (st->accept_pauses)
        fprintf(out,
                "truecost sim: accepting paused %llu times for 100 ms (%s); raise the open "
                "files limit (ulimit -n)\n",
                (unsigned long long)st->accept_pauses, strerror(st->accept_errno));
    if (st->closed_reused)
        fprintf(out,
                "truecost sim: closed %llu kept-alive connections as a request arrived on them "
                "(--close-after)\n",
                (unsigned long long)st->closed_reused);
}
