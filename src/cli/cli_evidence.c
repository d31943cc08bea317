/* Evidence options for lockin and decide. */
#include "cli_evidence.h"

#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"

int tc_cli_evidence_runs(tc_app_evidence_opts *o, const char *value)
{
    /* Two values: the second is the next word, taken here. */
    if (optind >= o->argc || o->argv[optind][0] == '-') {
        tc_app_error("%s takes two runs: INCUMBENT ALTERNATIVE (ids, labels or groups)",
                     o->runs_name);
        return -1;
    }
    o->src.run_a = value;
    o->src.run_b = o->argv[optind++];
    return 0;
}

int tc_cli_evidence_train(tc_app_evidence_opts *o, const char *value)
{
    if (optind >= o->argc || o->argv[optind][0] == '-') {
        tc_app_error("--train takes two training runs: INCUMBENT ALTERNATIVE (ids or labels of "
                     "'truecost train' runs)");
        return -1;
    }
    o->src.train_a = value;
    o->src.train_b = o->argv[optind++];
    return 0;
}

int tc_cli_evidence_check(tc_app_evidence_opts *o)
{
    tc_cli_profiles_resolve(o->profile, &o->src.profile_a, &o->src.profile_b);
    if (!o->src.profile_a != !o->src.profile_b) {
        tc_app_error("give both --profile-a and --profile-b (each platform's cost profile), "
                     "--profile for both, or none");
        return -1;
    }
    if (o->src.at > 0 && !o->src.profile_a) {
        tc_app_error("--at prices each platform's fleet at that interactivity: give %s SWEEP_A "
                     "SWEEP_B and --profile-a/--profile-b (with [workload] tokens_per_month)",
                     o->runs_name);
        return -1;
    }
    if (o->src.demand > 0 && !(o->src.at > 0)) {
        tc_app_error("--demand sizes the fleets priced at --at X: give --at too");
        return -1;
    }
    if (o->src.profile_a && !o->src.run_a) {
        tc_app_error("--profile-a/--profile-b price the runs of %s A B: give them too",
                     o->runs_name);
        return -1;
    }
    return 0;
}
