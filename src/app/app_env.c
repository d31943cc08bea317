/* truecost env's work: this machine's fingerprint collected and printed, or two stored
 * fingerprints compared. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_env.h"
#include "analysis/env_diff.h"
#include "views/view_env_pair.h"
#include "envinfo/env_fingerprint.h"
#include "report/report_env.h"

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

static int run_diff(const tc_app_env_args *a)
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

int tc_app_env(tc_app_env_args *a)
{
    if (a->diff)
        return run_diff(a);
    char err[1024] = "";
    json_t *fp = NULL;
    tc_err rc = tc_env_collect(&a->cfg, &fp, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("env: %s", err[0] ? err : tc_strerror(rc));
        return TC_EXIT_RUNTIME;
    }
    int code = TC_EXIT_OK;
    if (!a->json)
        tc_report_env_text(stdout, fp);
    else if (tc_report_env_json(stdout, fp, err, sizeof err) != TC_OK) {
        tc_app_error("env: %s", err);
        code = TC_EXIT_RUNTIME;
    }
    tc_env_free(fp);
    return code;
}
