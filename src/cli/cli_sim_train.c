/* truecost sim train: the SIMULATED trainer (sim/sim_train.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "app/app_sim.h"
#include "cli_opts.h"
#include "sim/sim_train.h"

static int parse(int argc, char **argv, tc_sim_train_config *c)
{
    tc_sim_train_defaults(c);
    long long seed = 0;
    const tc_cli_opt opts[] = {
        TC_OPT_S("format", 0, &c->format),
        TC_OPT_I("steps", 0, &c->steps, 1, 100000000),
        TC_OPT_D("step-ms", 0, &c->step_ms, 0.1, 3600e3),
        TC_OPT_D("jitter-ms", 0, &c->jitter_ms, 0, 3600e3),
        TC_OPT_I("warmup-steps", 0, &c->warmup_steps, 0, 100000000),
        TC_OPT_D("warmup-factor", 0, &c->warmup_factor, 1, 1000),
        TC_OPT_D("slowdown", 0, &c->slowdown_pct, 0, 10000),
        TC_OPT_I("warn-every", 0, &c->warn_every, 0, 100000000),
        TC_OPT_I("oom-at", 0, &c->oom_at, 0, 100000000),
        TC_OPT_I("crash-at", 0, &c->crash_at, 0, 100000000),
        TC_OPT_I("checkpoint-every", 0, &c->checkpoint_every, 0, 100000000),
        TC_OPT_I("samples-per-step", 0, &c->samples_per_step, 1, 1000000000),
        TC_OPT_I("tokens-per-step", 0, &c->tokens_per_step, 1, 1000000000000LL),
        TC_OPT_F("ignore-stop", 0, &c->ignore_stop),
        TC_OPT_D("hold", 0, &c->hold_s, 0, 86400),
        TC_OPT_SEED(&seed),
        TC_OPT_S("truth", 0, &c->truth_path),
        TC_OPT_S("metrics", 0, &c->metrics),
        TC_OPT_END,
    };
    if (tc_cli_parse("sim train", argc, argv, opts, c, NULL, 0, NULL) < 0)
        return -1;
    c->seed = (uint64_t)seed;
    char err[512];
    if (tc_sim_train_check(c, err, sizeof err) < 0) {
        tc_app_error("sim train: %s", err);
        return -1;
    }
    return 0;
}

int tc_cli_sim_train(int argc, char **argv)
{
    tc_sim_train_config c;
    if (parse(argc, argv, &c) < 0)
        return tc_cli_usage_hint("sim");
    return tc_app_sim_train(&c);
}
