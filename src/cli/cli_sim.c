/* truecost sim: parse options, start the simulated server, print where it
 * listens, run until Ctrl-C. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "app/app_sim.h"
#include "core/tc_outfile.h"
#include "cli_opts.h"
#include "sim/sim_limits.h"
#include "sim/sim_server.h"

static int opt_listen(const char *val, void *ctx)
{
    tc_app_sim_args *a = ctx;
    free(a->host_owned);
    return tc_cli_listen(val, &a->host_owned, &a->cfg.host, &a->cfg.port);
}

static int opt_model(const char *val, void *ctx)
{
    tc_sim_config *c = &((tc_app_sim_args *)ctx)->cfg;
    if (c->n_models >= TC_SIM_MAX_MODELS) {
        tc_app_error("--model: at most %d models", TC_SIM_MAX_MODELS);
        return -1;
    }
    if (!*val || strlen(val) >= 256) {
        tc_app_error("--model: a model name must be 1 to 255 characters");
        return -1;
    }
    c->models[c->n_models++] = val;
    return 0;
}

static int opt_fault(const char *val, void *ctx)
{
    char err[512];
    if (tc_sim_fault_parse(&((tc_app_sim_args *)ctx)->cfg.faults, val, err, sizeof err) < 0) {
        tc_app_error("%s", err);
        return -1;
    }
    return 0;
}

/* --seed takes every non-negative long long, a bound TC_OPT_I's doubles
 * cannot hold exactly. */
static int opt_seed(const char *val, void *ctx)
{
    long long n;
    if (tc_cli_int("--seed", val, 0, (long long)(~0ULL >> 1), &n) < 0)
        return -1;
    ((tc_app_sim_args *)ctx)->cfg.seed = (uint64_t)n;
    return 0;
}

/* 0, or -1 after printing the error. */
static int parse(int argc, char **argv, tc_app_sim_args *a)
{
    tc_sim_config *c = &a->cfg;
    memset(a, 0, sizeof *a);
    tc_sim_config_defaults(c);
    a->max_batch = c->timing.max_batch;
    a->max_body = (long long)c->max_body_bytes;
    const tc_cli_opt opts[] = {
        TC_OPT_C("listen", 0, opt_listen, 1),
        TC_OPT_S("port-file", 0, &a->port_file),
        TC_OPT_C("model", 0, opt_model, 1),
        TC_OPT_D("ttft-ms", 0, &c->timing.ttft_ms, 0, 3600e3),
        TC_OPT_D("prefill-tps", 0, &c->timing.prefill_tps, 1e-3, 1e9),
        TC_OPT_D("decode-tps", 0, &c->timing.decode_tps, 1e-3, 1e6),
        TC_OPT_D("jitter-ms", 0, &c->timing.jitter_ms, 0, 60e3),
        TC_OPT_D("drift", 0, &c->timing.drift_pct_per_min, 0, 100),
        TC_OPT_I("leak-kb-per-request", 0, &a->leak_kb, 0, 1 << 20),
        TC_OPT_I("max-batch", 0, &a->max_batch, 1, 1000000),
        TC_OPT_D("batch-slowdown", 0, &c->timing.batch_slowdown, 0, 100),
        TC_OPT_C("fault", 0, opt_fault, 1),
        TC_OPT_C("seed", 0, opt_seed, 1),
        TC_OPT_S("truth", 0, &c->truth_path),
        TC_OPT_D("tokens-per-word", 0, &c->tokens_per_word, 0.01, 100),
        TC_OPT_I("eos-after", 0, &a->eos_after, 0, 1000000),
        TC_OPT_I("max-body-bytes", 0, &a->max_body, 1024, 1LL << 30),
        TC_OPT_I("close-after", 0, &a->close_after, 0, 1000000000),
        TC_OPT_D("cpu-offload", 0, &c->cpu_offload, 0, 1),
        TC_OPT_END,
    };
    if (tc_cli_parse("sim", argc, argv, opts, a, NULL, 0, NULL) < 0)
        return -1;
    c->timing.max_batch = (int)a->max_batch;
    c->max_body_bytes = (size_t)a->max_body;
    c->eos_after = (int)a->eos_after;
    c->leak_kb_per_request = (int)a->leak_kb;
    c->close_after = (int)a->close_after;
    return 0;
}

int tc_cmd_sim(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "train") == 0)
        return tc_cli_sim_train(argc - 1, argv + 1);
    tc_app_sim_args a;
    int code = parse(argc, argv, &a) < 0 ? tc_cli_usage_hint("sim") : tc_app_sim(&a);
    free(a.host_owned);
    return code;
}
