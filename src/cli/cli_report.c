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
#include "app/app_report.h"
#include "cli_frontier.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "page/page_doc.h"

/* The format follows -o's extension (.md, .markdown; .html, .htm); a
 * --format that says otherwise is refused. Without either: html. */
static int format_of_path(tc_app_report_args *a)
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

static int check(tc_app_report_args *a)
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
    tc_app_report_args *a = ctx;
    if (optind >= a->argc || a->argv[optind][0] == '-') {
        tc_app_error("--train takes two training runs: INCUMBENT ALTERNATIVE (ids or labels of "
                     "'truecost train' runs)");
        return -1;
    }
    a->train[0] = value;
    a->train[1] = a->argv[optind++];
    return 0;
}

static int parse(int argc, char **argv, tc_app_report_args *a)
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

int tc_cmd_report(int argc, char **argv)
{
    tc_app_report_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("report");
    return tc_app_report(&a);
}
