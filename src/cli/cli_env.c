/* truecost env: print the fingerprint of this host (and of the inference
 * server, when there is one), or the differences between two saved ones. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/env_diff.h"
#include "views/view_env_pair.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "envinfo/env_fingerprint.h"
#include "report/report_env.h"

typedef struct env_args {
    tc_env_config cfg;
    int json, diff, no_server;
    const char *db; /* --diff of stored runs: the results database */
    const char *key_env;
    const char *files[2];
} env_args;

/* URL, or --diff's A and B; the count is checked after every option is
 * read, since --diff may come last. */
static int positionals(env_args *a, const char **pos, int n)
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

static int parse(int argc, char **argv, env_args *a, const char **pos)
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

/* A fingerprint file saved with --json, or else a stored run's id/label. */
static int load(const char *which, const char *db, json_t **fp)
{
    char err[1024];
    if (access(which, F_OK) == 0) {
        if (tc_env_load(which, fp, err, sizeof err) == TC_OK)
            return 0;
        tc_app_error("env: %s", err);
        return -1;
    }
    tc_store *st = NULL;
    if (tc_app_open_store(db, TC_STORE_READ, &st))
        return -1;
    tc_err rc = tc_view_fingerprint_pair(st, which, fp, err, sizeof err);
    tc_store_close(st);
    if (rc != TC_OK)
        tc_app_error("env: --diff: %s", err);
    return rc == TC_OK ? 0 : -1;
}

static int run_diff(const env_args *a)
{
    char err[256];
    int code = TC_EXIT_RUNTIME;
    tc_env_pair p = {0};
    if (load(a->files[0], a->db, &p.a) < 0 || load(a->files[1], a->db, &p.b) < 0)
        goto done;
    if (tc_view_fingerprint_pair_compare(&p) != TC_OK) {
        tc_app_error("env: --diff: out of memory");
        goto done;
    }
    if (!a->json)
        tc_report_env_diff_text(stdout, &p, a->files[0], a->files[1]);
    else if (tc_report_env_json(stdout, p.diffs, err, sizeof err) != TC_OK) {
        tc_app_error("env: %s", err);
        goto done;
    }
    char warn[1200];
    for (int k = 0; a->json && k < 2; k++)
        if (tc_fingerprint_client_host(k ? p.b : p.a)) {
            tc_report_env_client_warning(warn, sizeof warn, k ? "B" : "A", a->files[k]);
            tc_app_error("env: --diff: warning: %s", warn);
        }
    code = p.n ? TC_EXIT_CHECK : TC_EXIT_OK;
done:
    tc_view_fingerprint_pair_free(&p);
    return code;
}

int tc_cmd_env(int argc, char **argv)
{
    env_args a;
    const char **pos = calloc((size_t)argc, sizeof *pos); /* every argument may be one */
    int bad = !pos || parse(argc, argv, &a, pos) < 0;
    free(pos);
    if (bad)
        return tc_cli_usage_hint("env");
    if (a.diff)
        return run_diff(&a);
    char err[1024] = "";
    json_t *fp = NULL;
    tc_err rc = tc_env_collect(&a.cfg, &fp, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("env: %s", err[0] ? err : tc_strerror(rc));
        return TC_EXIT_RUNTIME;
    }
    int code = TC_EXIT_OK;
    if (!a.json)
        tc_report_env_text(stdout, fp);
    else if (tc_report_env_json(stdout, fp, err, sizeof err) != TC_OK) {
        tc_app_error("env: %s", err);
        code = TC_EXIT_RUNTIME;
    }
    tc_env_free(fp);
    return code;
}
