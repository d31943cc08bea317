/* truecost env: print the fingerprint of this host (and of the inference
 * server, when there is one), or the differences between two saved ones. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/env_diff.h"
#include "views/view_env_pair.h"
#include "cli.h"
#include "app/app_env.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "envinfo/env_fingerprint.h"
#include "report/report_env.h"

/* URL, or --diff's A and B; the count is checked after every option is
 * read, since --diff may come last. */
static int positionals(tc_app_env_args *a, const char **pos, int n)
{
    if (a->diff) {
        if (n != 2) {
            tc_app_error("env: --diff takes two fingerprint files, A.json B.json");
            return -1;
        }
        a->files[0] = pos[0];
        a->files[1] = pos[1];
        return 0;
    }
    if (n > 1) {
        tc_app_error("env: unexpected argument '%s'", pos[1]);
        return -1;
    }
    a->cfg.url = n == 1 ? pos[0] : NULL;
    return 0;
}

static int parse(int argc, char **argv, tc_app_env_args *a, const char **pos)
{
    memset(a, 0, sizeof *a);
    tc_telem_config *t = &a->cfg.telem;
    const tc_cli_opt opts[] = {
        TC_OPT_JSON(&a->json),
        TC_OPT_F("diff", 0, &a->diff),
        TC_OPT_DB(&a->db),
        TC_OPT_S("model", 0, &a->cfg.model),
        TC_OPT_S("root", 0, &a->cfg.root),
        TC_OPT_S("model-store", 0, &a->cfg.model_store),
        TC_OPT_F("no-server", 0, &a->no_server),
        TC_OPT_S("api-key-env", 0, &a->key_env),
        TC_OPT_S("telemetry", 0, &a->cfg.telemetry),
        TC_OPT_TELEM_SOURCES(t),
        TC_OPT_END,
    };
    int n = tc_cli_parse("env", argc, argv, opts, NULL, pos, argc, NULL);
    if (n < 0 || positionals(a, pos, n) < 0)
        return -1;
    a->cfg.find_local = !a->cfg.url && !a->cfg.root && !a->no_server;
    if (a->key_env) {
        a->cfg.api_key = getenv(a->key_env);
        if (!a->cfg.api_key || !*a->cfg.api_key) {
            tc_app_error("env: --api-key-env %s: the variable is not set or empty", a->key_env);
            return -1;
        }
    }
    return 0;
}

int tc_cmd_env(int argc, char **argv)
{
    tc_app_env_args a;
    const char **pos = calloc((size_t)argc, sizeof *pos); /* every argument may be one */
    int bad = !pos || parse(argc, argv, &a, pos) < 0;
    free(pos);
    if (bad)
        return tc_cli_usage_hint("env");
    return tc_app_env(&a);
}
