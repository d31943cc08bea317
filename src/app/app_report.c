/* truecost report's work: the dossier loaded (assess/) and written as one HTML or Markdown
 * page (page/), never over one of its inputs; its path printed. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/app.h"
#include "app/app_report.h"
#include "analysis/bootstrap.h"
#include "app/app_frontier.h"
#include "page/page_doc.h"

/* The default file name: truecost-report-<label>.html, the label made
 * safe for a file name. */
static void default_path(const tc_app_report_args *a, char *out, size_t len)
{
    char label[200];
    snprintf(label, sizeof label, "%s%s%s", a->pos[0], a->pos[1] ? "-vs-" : "",
             a->pos[1] ? a->pos[1] : "");
    for (char *p = label; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *p))
            *p = '_';
    snprintf(out, len, "truecost-report-%s.%s", label, a->format);
}

int tc_app_report(tc_app_report_args *a)
{
    char path[1024], err[1024];
    tc_cost_profile pa, pb;
    const char *fa = a->profile_a, *fb = a->profile_b;
    if (tc_app_load_profile(fa, &pa) || tc_app_load_profile(fb, &pb))
        return TC_EXIT_USAGE;
    tc_dossier_ask ask = {.which = {a->pos[0], a->pos[1]},
                          .profile = {fa ? &pa : NULL, fb ? &pb : NULL},
                          .targets = a->targets,
                          .n_targets = a->n_targets,
                          .at_given = a->at != NULL,
                          .has_claim = !isnan(a->claim),
                          .claim = a->claim,
                          .slo = a->slo_text ? &a->slo : NULL,
                          .resamples_compare = a->resamples ? (int)a->resamples : TC_BOOT_RESAMPLES,
                          .resamples_frontier =
                              a->resamples ? (int)a->resamples : TC_FRONTIER_RESAMPLES,
                          .seed = (uint64_t)a->seed,
                          .assessment = a->assessment,
                          .gaps = a->gaps,
                          .soak = a->soak,
                          .kernels = a->kernels,
                          .fit = a->fit,
                          .train = {a->train[0], a->train[1]},
                          .demand = a->demand,
                          .profile_path = {fa, fb},
                          .command = tc_app_command_line()};
    if (a->output)
        snprintf(path, sizeof path, "%s", a->output);
    else
        default_path(a, path, sizeof path);
    tc_store *st;
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_inputs in = {0};
    tc_inputs_add(&in, "--db", tc_store_path(st));
    tc_inputs_add(&in, "--profile-a", fa);
    tc_inputs_add(&in, "--profile-b", fb);
    tc_inputs_add(&in, "--assessment", a->assessment);
    tc_inputs_add(&in, "--gaps", a->gaps);
    tc_inputs_add(&in, "--kernels", a->kernels);
    tc_inputs_add(&in, "--fit", a->fit);
    tc_page_out out = {.fmt = strcmp(a->format, "md") == 0 ? TC_PAGE_MD : TC_PAGE_HTML,
                       .path = path,
                       .inputs = &in,
                       .force = a->force};
    tc_dossier d;
    /* Refused before anything is read: an output over an input. */
    tc_err rc = tc_page_may_write(&out, path, err, sizeof err);
    int refused = rc != TC_OK; /* a file it may not write: the user's to fix */
    if (rc == TC_OK)
        rc = tc_dossier_load(st, &ask, &d, err, sizeof err);
    else
        memset(&d, 0, sizeof d);
    if (rc == TC_OK) {
        rc = tc_page_write(&d, &out, err, sizeof err);
        refused = rc == TC_ERR_INVALID;
    }
    code = tc_app_check(rc, err);
    if (code && refused)
        code = TC_EXIT_USAGE;
    if (!code)
        printf("%s\n", path);
    tc_dossier_free(&d);
    tc_store_close(st);
    return code;
}
