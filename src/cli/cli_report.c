/* truecost report: one self-contained HTML file (or Markdown and SVG
 * files) with the charts and tables a platform decision needs. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/bootstrap.h"
#include "cli.h"
#include "cli_frontier.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "page/page_doc.h"

typedef struct report_args {
    const char *db, *profile, *profile_a, *profile_b, *assessment, *gaps, *soak, *at, *slo_text;
    const char *kernels, *fit, *train[2];
    int argc;
    char **argv;
    const char *output, *format, *pos[2];
    tc_slo slo;
    long long resamples, seed;
    double claim;  /* NaN: none */
    double demand; /* 0: the profiles' (frontier) or the assessment's (lock-in) */
    int force;
    double targets[TC_FRONTIER_MAX_TARGETS];
    size_t n_targets;
} report_args;

/* The format follows -o's extension (.md, .markdown; .html, .htm); a
 * --format that says otherwise is refused. Without either: html. */
static int format_of_path(report_args *a)
{
    const char *dot = a->output ? strrchr(a->output, '.') : NULL;
    const char *by_ext = !dot                                                       ? NULL
                         : !strcasecmp(dot, ".md") || !strcasecmp(dot, ".markdown") ? "md"
                         : !strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm")    ? "html"
                                                                                    : NULL;
    if (a->format && by_ext && strcmp(a->format, by_ext) != 0) {
        tc_app_error("report: -o %s is %s by its name but --format is %s: give a matching name "
                     "or format",
                     a->output, by_ext, a->format);
        return -1;
    }
    if (!a->format)
        a->format = by_ext ? by_ext : "html";
    return 0;
}

static int check(report_args *a)
{
    if (!a->pos[0]) {
        tc_app_error("report: give a RUN, GROUP or SWEEP (and a second one to compare)");
        return -1;
    }
    tc_cli_profiles_resolve(a->profile, &a->profile_a, &a->profile_b);
    if (a->pos[1] && !a->profile_a != !a->profile_b) {
        tc_app_error("report: give both --profile-a and --profile-b, or --profile for both");
        return -1;
    }
    if ((a->gaps || a->soak) && !a->assessment) {
        tc_app_error("report: %s goes with --assessment FILE", a->gaps ? "--gaps" : "--soak");
        return -1;
    }
    if (a->format && strcmp(a->format, "html") != 0 && strcmp(a->format, "md") != 0) {
        tc_app_error("report: --format '%s': expected html or md", a->format);
        return -1;
    }
    if (format_of_path(a) < 0)
        return -1;
    char err[512];
    if (a->slo_text && tc_slo_parse(a->slo_text, &a->slo, err, sizeof err) != TC_OK) {
        tc_app_error("report: %s", err);
        return -1;
    }
    return tc_cli_frontier_targets("report", a->at, a->targets, &a->n_targets);
}

/* --train A B: two values, the second the next word. */
static int take_train(const char *value, void *ctx)
{
    report_args *a = ctx;
    if (optind >= a->argc || a->argv[optind][0] == '-') {
        tc_app_error("--train takes two training runs: INCUMBENT ALTERNATIVE (ids or labels of "
                     "'truecost train' runs)");
        return -1;
    }
    a->train[0] = value;
    a->train[1] = a->argv[optind++];
    return 0;
}

static int parse(int argc, char **argv, report_args *a)
{
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->resamples = 0; /* each analysis its own default */
    a->seed = TC_BOOT_SEED;
    a->claim = NAN;

    const tc_cli_opt opts[] = {
        TC_OPT_DB(&a->db),
        TC_OPT_PROFILES(&a->profile, &a->profile_a, &a->profile_b),
        TC_OPT_S("assessment", 0, &a->assessment),
        TC_OPT_S("gaps", 0, &a->gaps),
        TC_OPT_S("soak", 0, &a->soak),
        TC_OPT_S("kernels", 0, &a->kernels),
        TC_OPT_S("fit", 0, &a->fit),
        TC_OPT_C("train", 0, take_train, 1),
        TC_OPT_AT_LIST(&a->at),
        TC_OPT_DEMAND(&a->demand),
        TC_OPT_SLO(&a->slo_text),
        TC_OPT_CLAIM(&a->claim),
        TC_OPT_RESAMPLES(&a->resamples),
        TC_OPT_SEED(&a->seed),
        TC_OPT_S("output", 'o', &a->output),
        TC_OPT_S("format", 0, &a->format),
        TC_OPT_F("force", 0, &a->force),
        TC_OPT_END,
    };
    if (tc_cli_parse("report", argc, argv, opts, a, a->pos, 2, NULL) < 0)
        return -1;
    return check(a);
}

static int load_profile(const char *path, tc_cost_profile *p)
{
    char err[1024];
    if (!path || tc_cost_profile_load(path, p, err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("%s", err);
    return -1;
}

/* The default file name: truecost-report-<label>.html, the label made
 * safe for a file name. */
static void default_path(const report_args *a, char *out, size_t len)
{
    char label[200];
    snprintf(label, sizeof label, "%s%s%s", a->pos[0], a->pos[1] ? "-vs-" : "",
             a->pos[1] ? a->pos[1] : "");
    for (char *p = label; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *p))
            *p = '_';
    snprintf(out, len, "truecost-report-%s.%s", label, a->format);
}

int tc_cmd_report(int argc, char **argv)
{
    report_args a;
    char path[1024], err[1024];
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("report");
    tc_cost_profile pa, pb;
    const char *fa = a.profile_a, *fb = a.profile_b;
    if (load_profile(fa, &pa) < 0 || load_profile(fb, &pb) < 0)
        return TC_EXIT_USAGE;
    tc_dossier_ask ask = {.which = {a.pos[0], a.pos[1]},
                          .profile = {fa ? &pa : NULL, fb ? &pb : NULL},
                          .targets = a.targets,
                          .n_targets = a.n_targets,
                          .at_given = a.at != NULL,
                          .has_claim = !isnan(a.claim),
                          .claim = a.claim,
                          .slo = a.slo_text ? &a.slo : NULL,
                          .resamples_compare = a.resamples ? (int)a.resamples : TC_BOOT_RESAMPLES,
                          .resamples_frontier =
                              a.resamples ? (int)a.resamples : TC_FRONTIER_RESAMPLES,
                          .seed = (uint64_t)a.seed,
                          .assessment = a.assessment,
                          .gaps = a.gaps,
                          .soak = a.soak,
                          .kernels = a.kernels,
                          .fit = a.fit,
                          .train = {a.train[0], a.train[1]},
                          .demand = a.demand,
                          .profile_path = {fa, fb},
                          .command = tc_app_command_line()};
    if (a.output)
        snprintf(path, sizeof path, "%s", a.output);
    else
        default_path(&a, path, sizeof path);
    tc_store *st;
    int code = tc_app_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_inputs in = {0};
    tc_inputs_add(&in, "--db", tc_store_path(st));
    tc_inputs_add(&in, "--profile-a", fa);
    tc_inputs_add(&in, "--profile-b", fb);
    tc_inputs_add(&in, "--assessment", a.assessment);
    tc_inputs_add(&in, "--gaps", a.gaps);
    tc_inputs_add(&in, "--kernels", a.kernels);
    tc_inputs_add(&in, "--fit", a.fit);
    tc_page_out out = {.fmt = strcmp(a.format, "md") == 0 ? TC_PAGE_MD : TC_PAGE_HTML,
                       .path = path,
                       .inputs = &in,
                       .force = a.force};
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
