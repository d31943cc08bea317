/* truecost lockin: the lock-in cost of an assessment file (point estimate,
 * Monte Carlo distribution, sensitivity, break-even), with the guessed
 * ranges that measurements replace given as options. */
#include "cli_lockin.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_evidence.h"
#include "report/report_json.h"

typedef struct lockin_args {
    const char *file;
    long samples;
    uint64_t seed;
    int json, help;
    tc_lockin_overrides o;
    tc_cli_evidence_opts ev;
} lockin_args;

#define DEFAULT_SEED 1

void tc_cmd_lockin_help(FILE *out)
{
    fputs("Usage: truecost lockin FILE [--samples N] [--seed S] [--json]\n"
          "                           [--running-saving-per-month X] [--perf-ratio R]\n"
          "                           [--gaps-top LOW..MODE..HIGH | --gaps FILE]\n"
          "                           [--perf RUN_A RUN_B [--profile-a F --profile-b F]]\n"
          "                           [--db PATH]\n"
          "\n"
          "The one-time cost of moving to another platform (seed 000, section 4.5):\n"
          "  (T_env + T_op + T_perf + T_stab + T_learn) x day_cost\n"
          "  + probability x incident_cost + premium x hire_cost\n"
          "from an assessment file (INI; examples/assessment-*.ini and the README),\n"
          "weighed against the hardware saving: each term at the point values, the\n"
          "distribution by Monte Carlo (triangular per range, the risk as an event),\n"
          "P(cost > saving), the inputs that move the total most, and break-even.\n"
          "\n"
          "Options:\n"
          "  --samples N        Monte Carlo draws (default 100000, at most 10000000)\n"
          "  --seed S           seed of the draws (default 1): same seed, same figures\n"
          "  --json             print the figures as JSON\n"
          "  --running-saving-per-month X\n"
          "                     running cost saved per month by the alternative, in the\n"
          "                     file's currency (negative: it costs more); gives the\n"
          "                     break-even and adds X x months to the net benefit\n"
          "  --perf-ratio R     measured throughput alternative / incumbent: >= 0.8 sets\n"
          "                     T_perf to its low end (tuning optional); 0.5 to 0.8 keeps\n"
          "                     it (tuning needed); < 0.5 keeps it and flags \"suspect\n"
          "                     operator fallback before blaming the hardware\"\n"
          "  --gaps-top LOW..MODE..HIGH\n"
          "                     replace T_op with this range of person-days (from a gap\n"
          "                     table)\n"
          "  --gaps FILE        T_op from a saved 'truecost gaps --json' table\n"
          "  --perf RUN_A RUN_B the performance gap from two stored runs or groups of the\n"
          "                     same workload: A on the incumbent, B on the alternative\n"
          "                     (sets --perf-ratio to B's output tokens/s / A's)\n"
          "  --profile-a F, --profile-b F\n"
          "                     with --perf: each platform's cost profile; the running\n"
          "                     saving per month = (cost per token A - B) x [horizon]\n"
          "                     tokens_per_month\n"
          "  --db PATH          the results database of the runs\n"
          "\n"
          "Exit status: 0 done, 1 usage or bad assessment file, 2 file unreadable or\n"
          "out of memory.\n",
          out);
}

enum { OPT_SAMPLES = 256, OPT_SEED, OPT_JSON, OPT_RUNNING, OPT_PERF, OPT_GAPS_TOP };

static const struct option options[] = {
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"seed", required_argument, NULL, OPT_SEED},
    {"json", no_argument, NULL, OPT_JSON},
    {"running-saving-per-month", required_argument, NULL, OPT_RUNNING},
    {"perf-ratio", required_argument, NULL, OPT_PERF},
    {"gaps-top", required_argument, NULL, OPT_GAPS_TOP},
    {"gaps", required_argument, NULL, TC_EV_OPT_GAPS},
    {"perf", required_argument, NULL, TC_EV_OPT_RUNS},
    {"profile-a", required_argument, NULL, TC_EV_OPT_PROFILE_A},
    {"profile-b", required_argument, NULL, TC_EV_OPT_PROFILE_B},
    {"db", required_argument, NULL, TC_EV_OPT_DB},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int gaps_top(const char *text, tc_lockin_overrides *o)
{
    tc_lockin_range r;
    char why[200];
    if (tc_lockin_range_parse(text, &r, why, sizeof why) != TC_OK) {
        tc_cli_error("--gaps-top: %s; expected person-days as LOW..MODE..HIGH or LOW..HIGH, "
                     "e.g. 6..10..15",
                     why);
        return -1;
    }
    if (r.high > 1e6) {
        tc_cli_error("--gaps-top: %s: over 1e6 person-days", text);
        return -1;
    }
    o->has_operators = 1;
    o->op_low = r.low;
    o->op_mode = tc_lockin_range_point(&r);
    o->op_high = r.high;
    snprintf(o->op_source, sizeof o->op_source, "--gaps-top");
    return 0;
}

/* One option's value into *a; -1 after printing the error. */
static int take_option(int opt, const char *val, lockin_args *a)
{
    long long n;
    double x;
    switch (opt) {
    case OPT_SAMPLES:
        if (tc_cli_int("--samples", val, 1, TC_LOCKIN_MAX_SAMPLES, &n) < 0)
            return -1;
        a->samples = (long)n;
        return 0;
    case OPT_SEED:
        if (tc_cli_int("--seed", val, 0, LLONG_MAX, &n) < 0)
            return -1;
        a->seed = (uint64_t)n;
        return 0;
    case OPT_RUNNING:
        if (tc_cli_double("--running-saving-per-month", val, -1e15, 1e15, &x) < 0)
            return -1;
        a->o.has_running_saving = 1;
        a->o.running_saving_per_month = x;
        snprintf(a->o.running_source, sizeof a->o.running_source, "--running-saving-per-month");
        return 0;
    case OPT_PERF:
        if (tc_cli_double("--perf-ratio", val, 0, 1000, &x) < 0)
            return -1;
        if (!(x > 0)) {
            tc_cli_error("--perf-ratio: expected alternative / incumbent throughput > 0");
            return -1;
        }
        a->o.has_perf_ratio = 1;
        a->o.perf_ratio = x;
        snprintf(a->o.perf_source, sizeof a->o.perf_source, "--perf-ratio");
        return 0;
    case OPT_GAPS_TOP:
        return gaps_top(val, &a->o);
    }
    return -1;
}

static int parse_args(int argc, char **argv, lockin_args *a)
{
    memset(a, 0, sizeof *a);
    a->samples = TC_LOCKIN_DEFAULT_SAMPLES;
    a->seed = DEFAULT_SEED;
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (opt == OPT_JSON)
            a->json = 1;
        else if (opt == 'h')
            a->help = 1;
        else if (opt == '?' || opt == ':') {
            tc_cli_error("lockin: unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        } else {
            int ev = tc_cli_evidence_option(opt, argc, argv, "--perf", &a->ev);
            if (ev < 0 || (ev == 0 && take_option(opt, optarg, a) < 0))
                return -1;
        }
    }
    if (optind < argc)
        a->file = argv[optind++];
    if (optind < argc) {
        tc_cli_error("lockin: unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (!a->help && !a->file) {
        tc_cli_error("lockin: which assessment? give an INI file (see examples/assessment-*.ini)");
        return -1;
    }
    if (a->ev.gaps_file && a->o.has_operators) {
        tc_cli_error("lockin: give --gaps FILE or --gaps-top RANGE, not both");
        return -1;
    }
    if (a->ev.run_a && a->o.has_perf_ratio) {
        tc_cli_error("lockin: give --perf RUN_A RUN_B or --perf-ratio R, not both");
        return -1;
    }
    if (a->ev.profile_a && a->o.has_running_saving) {
        tc_cli_error("lockin: give --profile-a/--profile-b or --running-saving-per-month, not "
                     "both");
        return -1;
    }
    return a->help ? 0 : tc_cli_evidence_check(&a->ev, "--perf");
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *range_json(const tc_lockin_range *r)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:s,s:o}", "low", r->low, "mode", tc_lockin_range_point(r),
                     "high", r->high, "point", tc_lockin_range_point(r), "source", r->source,
                     "line", r->line ? json_integer(r->line) : json_null());
}

static json_t *answer_json(tc_lockin_answer a)
{
    return a == TC_LOCKIN_NOT_GIVEN ? json_null() : json_string(tc_lockin_answer_name(a));
}

static json_t *inputs_json(const tc_lockin *in)
{
    json_t *effort = json_object();
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        json_object_set_new(effort, tc_lockin_item_name((tc_lockin_item)i),
                            range_json(&in->effort[i]));
    return json_pack("{s:o,s:f,s:f,s:f,s:o,s:f,s:f,s:f,s:f,s:f,s:o,s:{s:o,s:o,s:o}}", "effort",
                     effort, "day_cost", in->day_cost.value, "probability", in->probability.value,
                     "incident_cost", in->incident_cost.value, "premium", range_json(&in->premium),
                     "hire_cost", in->hire_cost.value, "units", in->units.value, "price_incumbent",
                     in->price_incumbent.value, "price_alternative", in->price_alternative.value,
                     "months", in->months.value, "tokens_per_month",
                     in->tokens_per_month.valid ? json_real(in->tokens_per_month.value)
                                                : json_null(),
                     "decision", "profiler_skill", answer_json(in->profiler_skill), "fallback_path",
                     answer_json(in->fallback_path), "soak_passed", answer_json(in->soak_passed));
}

static json_t *quantiles_json(const tc_lockin_quantiles *q)
{
    return json_pack("{s:f,s:f,s:f}", "p10", q->p10, "p50", q->p50, "p90", q->p90);
}

static json_t *break_even_json(const tc_lockin_result *r)
{
    if (!r->has_running_saving)
        return json_null();
    if (r->break_even_never)
        return json_pack("{s:b,s:f,s:n,s:n,s:n,s:n}", "never", 1, "running_saving_per_month",
                         r->running_saving_per_month, "p10", "p50", "p90", "after_hardware");
    json_t *doc = quantiles_json(&r->break_even_months);
    json_object_set_new(doc, "never", json_false());
    json_object_set_new(doc, "running_saving_per_month", json_real(r->running_saving_per_month));
    json_object_set_new(doc, "after_hardware",
                        quantiles_json(&r->break_even_months_after_hardware));
    return doc;
}

static json_t *perf_json(const tc_lockin_result *r, const tc_lockin_overrides *o)
{
    if (r->perf_class == TC_LOCKIN_PERF_NONE)
        return json_null();
    return json_pack("{s:f,s:s,s:b,s:o}", "ratio", r->perf_ratio, "class",
                     tc_lockin_perf_class_name(r->perf_class), "flagged",
                     r->perf_class == TC_LOCKIN_PERF_SUSPECT, "source",
                     tc_json_string(o && o->perf_source[0] ? o->perf_source : "measured"));
}

static json_t *terms_json(const tc_lockin_terms *t)
{
    json_t *days = json_object();
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        json_object_set_new(days, tc_lockin_item_name((tc_lockin_item)i),
                            json_real(t->item_days[i]));
    return json_pack("{s:f,s:f,s:f,s:f,s:o}", "effort_days", t->effort_days, "effort_cost",
                     t->effort_cost, "risk_cost", t->risk_cost, "talent_cost", t->talent_cost,
                     "item_days", days);
}

static json_t *lockin_json(const tc_lockin_result *r, const tc_lockin_overrides *o)
{
    json_t *sens = json_array();
    for (int i = 0; i < r->n_sensitivity; i++) {
        const tc_lockin_swing *s = &r->sensitivity[i];
        json_array_append_new(sens, json_pack("{s:s,s:f,s:f,s:f}", "input", s->input, "low_total",
                                              s->low_total, "high_total", s->high_total, "swing",
                                              s->swing));
    }
    json_t *net = quantiles_json(&r->net_benefit);
    json_object_set_new(net, "months", json_real(r->inputs.months.value));
    json_object_set_new(net, "probability_positive", json_real(r->probability_net_positive));
    json_object_set_new(net, "running_saving_included", json_boolean(r->has_running_saving));
    char reading[600];
    tc_lockin_reading(r, reading, sizeof reading);
    return json_pack(
        "{s:b,s:o,s:o,s:o,s:f,s:o,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:o,s:o,"
        "s:o,s:o,s:o,s:s}",
        "simulated", o && o->simulated, "assessment", tc_json_string(r->inputs.name), "currency",
        tc_json_string(r->inputs.currency), "inputs", inputs_json(&r->inputs), "point_estimate",
        r->point.total, "terms", terms_json(&r->point), "samples", (json_int_t)r->samples, "seed",
        (json_int_t)r->seed, "mean", r->mean, "min", r->min, "max", r->max, "p10", r->total.p10,
        "p50", r->total.p50, "p90", r->total.p90, "hardware_saving", r->hardware_saving,
        "probability_exceeds_saving", r->probability_exceeds_saving, "sensitivity", sens,
        "performance", perf_json(r, o), "running_saving_per_month",
        r->has_running_saving ? json_real(r->running_saving_per_month) : json_null(), "break_even",
        break_even_json(r), "net_benefit", net, "reading", reading);
}

/* ---- text ------------------------------------------------------------- */

static void print_range(const char *name, const tc_lockin_range *r, const char *unit)
{
    char where[128];
    if (r->line)
        snprintf(where, sizeof where, "line %d", r->line);
    else
        snprintf(where, sizeof where, "%s", r->source);
    printf("  %-14s %8.4g ..%8.4g ..%8.4g  %-13s (%s)\n", name, r->low, tc_lockin_range_point(r),
           r->high, unit, where);
}

static void print_point(const tc_lockin_result *r)
{
    const tc_lockin *in = &r->inputs;
    const tc_lockin_terms *t = &r->point;
    const char *cur = in->currency;
    puts("Inputs (low .. point .. high):");
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        print_range(tc_lockin_item_name((tc_lockin_item)i), &in->effort[i], "person-days");
    print_range("talent", &in->premium, "extra hires");
    puts("Point estimate (modes, or midpoints of LOW..HIGH):");
    char what[96];
    snprintf(what, sizeof what, "%.4g person-days x %.2f per day", t->effort_days,
             in->day_cost.value);
    printf("  %-7s %-46s = %12.2f %s\n", "effort", what, t->effort_cost, cur);
    snprintf(what, sizeof what, "%.4g probability x %.2f per incident", in->probability.value,
             in->incident_cost.value);
    printf("  %-7s %-46s = %12.2f %s\n", "risk", what, t->risk_cost, cur);
    snprintf(what, sizeof what, "%.4g extra hires x %.2f per hire",
             tc_lockin_range_point(&in->premium), in->hire_cost.value);
    printf("  %-7s %-46s = %12.2f %s\n", "talent", what, t->talent_cost, cur);
    printf("  %-56s %12.2f %s\n", "lock-in cost", t->total, cur);
}

static void print_distribution(const tc_lockin_result *r)
{
    const tc_lockin *in = &r->inputs;
    const char *cur = in->currency;
    printf("Monte Carlo (%zu samples, seed %llu): P10 %.2f, P50 %.2f, P90 %.2f, mean %.2f %s\n",
           r->samples, (unsigned long long)r->seed, r->total.p10, r->total.p50, r->total.p90,
           r->mean, cur);
    printf("Hardware saving: %.0f units x (%.2f - %.2f) = %.2f %s\n", in->units.value,
           in->price_incumbent.value, in->price_alternative.value, r->hardware_saving, cur);
    printf("P(lock-in cost > hardware saving) = %.1f%%\n", 100 * r->probability_exceeds_saving);
    puts("Sensitivity (each range low -> high, the others at their point values):");
    if (r->n_sensitivity == 0)
        puts("  none: every input is a single number");
    for (int i = 0; i < r->n_sensitivity; i++) {
        const tc_lockin_swing *s = &r->sensitivity[i];
        printf("  %-12s %12.2f .. %12.2f  swing %12.2f %s\n", s->input, s->low_total, s->high_total,
               s->swing, cur);
    }
}

static void print_weighing(const tc_lockin_result *r, const tc_lockin_overrides *o)
{
    const char *cur = r->inputs.currency;
    if (r->perf_class != TC_LOCKIN_PERF_NONE)
        printf("Performance: alternative / incumbent throughput %.3g (%s): %s%s\n", r->perf_ratio,
               o && o->perf_source[0] ? o->perf_source : "measured",
               tc_lockin_perf_class_name(r->perf_class),
               r->perf_class == TC_LOCKIN_PERF_OPTIONAL ? " (T_perf at its low end)"
                                                        : " (T_perf range kept)");
    if (!r->has_running_saving)
        puts("Break-even: not computed (give --running-saving-per-month)");
    else if (r->break_even_never)
        printf("Break-even: never (the running saving is %.2f %s per month)\n",
               r->running_saving_per_month, cur);
    else
        printf("Break-even: P10 %.1f, P50 %.1f, P90 %.1f months of running saving "
               "(%.1f, %.1f, %.1f after the hardware saving)\n",
               r->break_even_months.p10, r->break_even_months.p50, r->break_even_months.p90,
               r->break_even_months_after_hardware.p10, r->break_even_months_after_hardware.p50,
               r->break_even_months_after_hardware.p90);
    printf("Net benefit over %.4g months%s: P10 %.2f, P50 %.2f, P90 %.2f %s; positive in "
           "%.1f%%\n",
           r->inputs.months.value, r->has_running_saving ? "" : " (hardware saving only)",
           r->net_benefit.p10, r->net_benefit.p50, r->net_benefit.p90, cur,
           100 * r->probability_net_positive);
    char reading[600];
    tc_lockin_reading(r, reading, sizeof reading);
    printf("Reading: %s.\n", reading);
}

int tc_cli_lockin_report(const tc_lockin *a, const tc_lockin_overrides *o, long samples,
                         uint64_t seed, int json)
{
    tc_lockin_result r;
    char err[512];
    if (samples < 1) {
        tc_cli_error("lockin: --samples %ld: expected 1 to %d", samples, TC_LOCKIN_MAX_SAMPLES);
        return TC_EXIT_USAGE;
    }
    tc_err rc = tc_lockin_evaluate(a, o, (size_t)samples, seed, &r, err, sizeof err);
    if (rc != TC_OK) {
        tc_cli_error("lockin: %s", err);
        return rc == TC_ERR_NOMEM ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
    }
    int code = TC_EXIT_OK;
    if (json) {
        json_t *doc = lockin_json(&r, o);
        if (!doc || tc_json_dump(stdout, doc, err, sizeof err) != TC_OK) {
            tc_cli_error("lockin: %s", doc ? err : "out of memory building JSON");
            code = TC_EXIT_RUNTIME;
        }
        json_decref(doc);
    } else {
        printf("%sLock-in cost of %s (%s)\n", o && o->simulated ? "SIMULATED evidence: " : "",
               r.inputs.name, r.inputs.currency);
        print_point(&r);
        print_distribution(&r);
        print_weighing(&r, o);
    }
    tc_lockin_result_free(&r);
    return code;
}

int tc_cmd_lockin(int argc, char **argv)
{
    lockin_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("lockin");
    if (a.help) {
        tc_cmd_lockin_help(stdout);
        return TC_EXIT_OK;
    }
    tc_lockin as;
    char err[1024];
    tc_err rc = tc_lockin_load(a.file, &as, err, sizeof err);
    if (rc != TC_OK) {
        tc_cli_error("%s", err);
        return rc == TC_ERR_PARSE ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    tc_cli_evidence ev;
    int code = tc_cli_evidence_gather(&a.ev, &as, &ev, &a.o);
    if (code)
        return code;
    return tc_cli_lockin_report(&as, &a.o, a.samples, a.seed, a.json);
}
