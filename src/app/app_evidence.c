/* lockin's and decide's evidence read (app_evidence.h). */
#include "app/app.h"
#include "app/app_evidence.h"

int tc_app_evidence_gather(const tc_app_evidence_opts *o, const tc_lockin *a, tc_evidence *ev,
                           tc_lockin_overrides *ov)
{
    char err[1024];
    tc_store *st = NULL;
    if (tc_evidence_needs_store(&o->src)) {
        int code = tc_app_open_store(o->db, TC_STORE_READ, &st);
        if (code)
            return code;
    }
    tc_err rc = tc_evidence_gather(st, &o->src, a, ev, ov, NULL, err, sizeof err);
    for (int i = 0; i < ev->n_notes; i++)
        tc_app_error("%s", ev->notes[i]);
    tc_store_close(st);
    if (rc == TC_OK)
        return 0;
    tc_app_error("%s", err);
    return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
}

int tc_app_evidence_read(const char *file, const tc_app_evidence_opts *o, tc_lockin *as,
                         tc_evidence *ev, tc_lockin_overrides *ov)
{
    char err[1024];
    tc_err rc = tc_lockin_load(file, as, err, sizeof err);
    if (rc == TC_OK)
        return tc_app_evidence_gather(o, as, ev, ov);
    tc_app_error("%s", err);
    return rc == TC_ERR_PARSE ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
}
