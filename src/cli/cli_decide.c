/* truecost decide: the migration checklist ticked from evidence, weighed
 * with the lock-in distribution, into stay / pilot / hybrid / migrate with
 * the reasons and the evidence still missing. */
#include <getopt.h>
#include <limits.h>
#include <string.h>

#include <jansson.h>

#include "assess/decide.h"
#include "cli.h"
#include "cli_evidence.h"
#include "report/report_json.h"

typedef struct decide_args {
    const char *file;
    long long samples, seed;
    int json, help;
    tc_cli_evidence_opts ev;
} decide_args;

void tc_cmd_decide_help(FILE *out)
{
    fputs("Usage: truecost decide FILE [--runs INCUMBENT ALTERNATIVE] [--gaps FILE]\n"
          "                       [--soak RUN] [--profile-a F --profile-b F] [--samples N]\n"
          "                       [--seed S]\n"
          "                       [--json] [--db PATH]\n"
          "\n"
          "Should the workload move? The checklist of seed 000 (5.6), each item ticked\n"
          "from evidence where truecost has it:\n"
          "  gaps        gap table done, key gaps have alternatives   (--gaps, from\n"
          "              'truecost gaps --json')\n"
          "  target_run  a run on the target completed without errors (--runs: B)\n"
          "  perf_gap    performance gap measured and within bounds  (--runs A B)\n"
          "  soak        a 24 h stability run passed: --soak RUN (a stored run on the target,\n"
          "              e.g. 'truecost run --duration 86400'; complete, 24 h or more, no\n"
          "              failed request), else [decision] soak_passed\n"
          "  profiler    someone reads a profiler and changes kernels ([decision] profiler_skill)\n"
          "  fallback    hybrid deployment and fallback designed      ([decision] fallback_path)\n"
          "with the lock-in cost of the assessment FILE (as 'truecost lockin', with the\n"
          "same evidence) and the selection rules of seed 003 (6.3), into a verdict:\n"
          "stay, pilot, hybrid or migrate, with its reasons and the missing evidence.\n"
          "Rules, first that applies: stay when the move pays off in under 20% of\n"
          "outcomes, the alternative is over 50% slower, or key gaps have no alternative\n"
          "and no fallback; migrate when every item is ticked, the gap is within 20%\n"
          "and it pays off in 80% or more; hybrid when a fallback is designed, it pays\n"
          "off in 50% or more and everything is measured; else pilot.\n"
          "\n"
          "Exit status: 0 decided, 1 usage or bad file, 2 a file, run or database not\n"
          "found.\n",
          out);
}

enum { OPT_SAMPLES = 256, OPT_SEED, OPT_JSON };

static const struct option options[] = {
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"seed", required_argument, NULL, OPT_SEED},
    {"json", no_argument, NULL, OPT_JSON},
    {"runs", required_argument, NULL, TC_EV_OPT_RUNS},
    {"gaps", required_argument, NULL, TC_EV_OPT_GAPS},
    {"profile-a", required_argument, NULL, TC_EV_OPT_PROFILE_A},
    {"profile-b", required_argument, NULL, TC_EV_OPT_PROFILE_B},
    {"db", required_argument, NULL, TC_EV_OPT_DB},
    {"soak", required_argument, NULL, TC_EV_OPT_SOAK},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int take(int opt, int argc, char **argv, decide_args *a)
{
    if (opt == OPT_SAMPLES)
        return tc_cli_int("--samples", optarg, 1, TC_LOCKIN_MAX_SAMPLES, &a->samples);
    if (opt == OPT_SEED)
        return tc_cli_int("--seed", optarg, 0, LLONG_MAX, &a->seed);
    if (opt == OPT_JSON)
        return a->json = 1, 0;
    if (opt == 'h')
        return a->help = 1, 0;
    int ev = tc_cli_evidence_option(opt, argc, argv, "--runs", &a->ev);
    if (ev == 0)
        tc_cli_error("decide: unknown or incomplete option '%s'", argv[optind - 1]);
    return ev == 1 ? 0 : -1;
}

static int parse_args(int argc, char **argv, decide_args *a)
{
    memset(a, 0, sizeof *a);
    a->samples = TC_LOCKIN_DEFAULT_SAMPLES;
    a->seed = 1;
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1)
        if (take(opt, argc, argv, a) < 0)
            return -1;
    if (optind < argc)
        a->file = argv[optind++];
    if (optind < argc) {
        tc_cli_error("decide: unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (a->help)
        return 0;
    if (!a->file) {
        tc_cli_error("decide: which assessment? give an INI file (see examples/assessment-*.ini)");
        return -1;
    }
    return tc_cli_evidence_check(&a->ev, "--runs");
}

static int answer(tc_lockin_answer a)
{
    return a == TC_LOCKIN_YES ? 1 : a == TC_LOCKIN_NO ? 0 : -1;
}

static void fill_input(const tc_lockin_result *r, const tc_cli_evidence *ev, tc_decide_input *in)
{
    memset(in, 0, sizeof *in);
    in->has_gaps = ev->has_gaps;
    in->gaps_missing = ev->gaps.missing;
    in->gaps_key_without_alternative = ev->gaps.key_without_alternative;
    in->gaps_key_unchecked = ev->gaps.key_unchecked;
    in->gaps_share_without_alternative = ev->gaps.share_without_alternative;
    in->has_target_run = ev->has_runs;
    in->target_completed = ev->target_completed;
    in->target_failed = ev->target_failed;
    snprintf(in->target_status, sizeof in->target_status, "%s", ev->target_status);
    in->has_perf = ev->has_runs;
    in->perf_ratio = ev->ratio;
    in->soak_passed = answer(r->inputs.soak_passed);
    in->has_soak = ev->has_soak;
    snprintf(in->soak_status, sizeof in->soak_status, "%s", ev->soak_status);
    in->soak_hours = ev->soak_hours;
    in->soak_measured = ev->soak_measured;
    in->soak_failed = ev->soak_failed;
    in->profiler_skill = answer(r->inputs.profiler_skill);
    in->fallback_path = answer(r->inputs.fallback_path);
    in->has_economics = 1;
    in->p_net_positive = r->probability_net_positive;
    in->lockin_p50 = r->total.p50;
    in->saving = r->hardware_saving +
                 (r->has_running_saving ? r->running_saving_per_month * r->inputs.months.value : 0);
    double alt = r->inputs.price_alternative.value;
    in->price_ratio = alt > 0 ? r->inputs.price_incumbent.value / alt : 0;
}

static const char *mark(tc_decide_state s)
{
    return s == TC_ITEM_TICKED ? "[x]" : s == TC_ITEM_FAILED ? "[ ]" : "[?]";
}

static void print_decision(const tc_lockin_result *r, const tc_decide_result *d, int simulated)
{
    printf("%sDecision for %s: %s\n", simulated ? "SIMULATED evidence: " : "", r->inputs.name,
           tc_decide_verdict_name(d->verdict));
    puts("Checklist ([x] ticked, [ ] not met, [?] not yet measured):");
    for (int i = 0; i < TC_DECIDE_ITEMS; i++) {
        const tc_decide_item *it = &d->items[i];
        printf("  %s %-58s %s\n      %s\n", mark(it->state), it->text,
               it->declared ? "(declared)" : "", it->evidence);
    }
    puts("Reasons:");
    for (int i = 0; i < d->n_reasons; i++)
        printf("  - %s\n", d->reasons[i]);
    char reading[600];
    tc_lockin_reading(r, reading, sizeof reading);
    printf("Lock-in: %s\n", reading);
}

static json_t *decision_json(const tc_lockin_result *r, const tc_decide_result *d, int simulated)
{
    json_t *items = json_array(), *reasons = json_array(), *missing = json_array();
    for (int i = 0; i < TC_DECIDE_ITEMS; i++) {
        const tc_decide_item *it = &d->items[i];
        json_array_append_new(
            items, json_pack("{s:s,s:o,s:s,s:b,s:o}", "id", it->id, "text",
                             tc_json_string(it->text), "state", tc_decide_state_name(it->state),
                             "declared", it->declared, "evidence", tc_json_string(it->evidence)));
        if (it->state == TC_ITEM_MISSING)
            json_array_append_new(missing, json_string(it->id));
    }
    for (int i = 0; i < d->n_reasons; i++)
        json_array_append_new(reasons, tc_json_string(d->reasons[i]));
    return json_pack("{s:b,s:o,s:s,s:o,s:o,s:o,s:{s:f,s:f,s:f,s:f,s:f,s:o,s:f}}", "simulated",
                     simulated, "assessment", tc_json_string(r->inputs.name), "verdict",
                     tc_decide_verdict_name(d->verdict), "checklist", items, "reasons", reasons,
                     "missing", missing, "economics", "lockin_p10", r->total.p10, "lockin_p50",
                     r->total.p50, "lockin_p90", r->total.p90, "hardware_saving",
                     r->hardware_saving, "probability_exceeds_saving",
                     r->probability_exceeds_saving, "running_saving_per_month",
                     r->has_running_saving ? json_real(r->running_saving_per_month) : json_null(),
                     "probability_net_positive", r->probability_net_positive);
}

static int report(const decide_args *a, const tc_lockin *as, const tc_cli_evidence *ev,
                  const tc_lockin_overrides *o)
{
    tc_lockin_result r;
    tc_decide_input in;
    tc_decide_result d;
    char err[512];
    if (tc_lockin_evaluate(as, o, (size_t)a->samples, (uint64_t)a->seed, &r, err, sizeof err) !=
        TC_OK) {
        tc_cli_error("decide: %s", err);
        return TC_EXIT_USAGE;
    }
    fill_input(&r, ev, &in);
    tc_decide(&in, &d);
    int code = 0;
    if (!a->json) {
        print_decision(&r, &d, o->simulated);
    } else {
        json_t *doc = decision_json(&r, &d, o->simulated);
        if (!doc || tc_json_dump(stdout, doc, err, sizeof err) != TC_OK)
            code = TC_EXIT_RUNTIME;
        json_decref(doc);
    }
    tc_lockin_result_free(&r);
    return code;
}

int tc_cmd_decide(int argc, char **argv)
{
    decide_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("decide");
    if (a.help) {
        tc_cmd_decide_help(stdout);
        return 0;
    }
    tc_lockin as;
    char err[1024];
    tc_err rc = tc_lockin_load(a.file, &as, err, sizeof err);
    if (rc != TC_OK) {
        tc_cli_error("%s", err);
        return rc == TC_ERR_PARSE ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    tc_cli_evidence ev;
    tc_lockin_overrides o = {0};
    int code = tc_cli_evidence_gather(&a.ev, &as, &ev, &o);
    return code ? code : report(&a, &as, &ev, &o);
}
