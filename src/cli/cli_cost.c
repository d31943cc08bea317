/* truecost cost: a stored run's cost per million output tokens under a
 * cost profile, computed on read so that a new profile applies to old
 * runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/cost.h"
#include "analysis/run_energy.h"
#include "analysis/run_metrics.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_results.h"
#include "cli_runset.h"
#include "report/report_json.h"

typedef struct cost_args {
    const char *run, *profile, *db;
    int json, help;
} cost_args;

void tc_cmd_cost_help(FILE *out)
{
    fputs("Usage: truecost cost RUN --profile FILE [--json] [--db PATH]\n"
          "\n"
          "Price a stored run (id, label, or a group from 'run --repeat', priced at its\n"
          "runs' mean throughput and power): cost per million output tokens =\n"
          "(hardware + electricity + operations per month) / effective output tokens\n"
          "per month, with every input and where it came from (measured, profile,\n"
          "default), each term, and J/token, tokens per kWh, tokens/s per watt.\n"
          "Profiles are INI files; see profiles/ and the README.\n"
          "\n"
          "Exit status: 0 done, 1 usage or bad profile, 2 run or database not found.\n",
          out);
}

static int parse_args(int argc, char **argv, cost_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_S("db", 0, &a->db),
        TC_OPT_F("json", 0, &a->json),
        TC_OPT_S("profile", 0, &a->profile),
        TC_OPT_END,
    };
    if (tc_cli_parse("cost", argc, argv, opts, NULL, &a->help, &a->run, 1, NULL) < 0)
        return -1;
    if (a->help)
        return 0;
    if (!a->run) {
        tc_cli_error("cost: which run? give its id or label (see 'truecost runs')");
        return -1;
    }
    if (!a->profile) {
        tc_cli_error("cost: --profile FILE is required (examples in profiles/)");
        return -1;
    }
    return 0;
}

/* A number, or JSON null when unknown. */
static json_t *num_or_null(int valid, double v)
{
    return valid && isfinite(v) ? json_real(v) : json_null();
}

static json_t *term_json(const tc_cost_term *t)
{
    return num_or_null(t->available, t->value);
}

static json_t *cost_json(const tc_runset *set, const tc_group_stat *spread,
                         const tc_cost_profile *p, const tc_cost_result *r)
{
    const tc_run_info *run = &set->runs[0];
    json_t *inputs = json_object(), *terms = json_object(), *energy = json_object();
    json_t *notes = json_object();
    for (int i = 0; i < r->n_inputs; i++) {
        const tc_cost_input *in = &r->inputs[i];
        json_object_set_new(inputs, in->name,
                            json_pack("{s:o,s:s,s:s}", "value",
                                      num_or_null(in->source != TC_COST_UNAVAILABLE, in->value),
                                      "source", tc_cost_source_name(in->source), "unit", in->unit));
    }
    json_object_set_new(terms, "hardware_per_month", term_json(&r->hardware));
    json_object_set_new(terms, "electricity_per_month", term_json(&r->electricity));
    json_object_set_new(terms, "operations_per_month", term_json(&r->operations));
    if (r->electricity.why[0])
        json_object_set_new(notes, "electricity_per_month", tc_json_string(r->electricity.why));
    json_object_set_new(energy, "joules_per_token",
                        num_or_null(r->has_energy, r->joules_per_token));
    json_object_set_new(energy, "tokens_per_kwh", num_or_null(r->has_energy, r->tokens_per_kwh));
    json_object_set_new(energy, "tokens_per_s_per_watt",
                        num_or_null(r->has_energy, r->tokens_per_s_per_watt));
    json_object_set_new(energy, "source",
                        r->has_energy ? json_string(tc_cost_source_name(r->energy_source))
                                      : json_null());
    /* Label, profile path and currency are the user's bytes, maybe not
     * UTF-8, which "s" refuses (no document at all): cleaned, with "o". */
    json_t *doc =
        json_pack("{s:I,s:o,s:b,s:o,s:o,s:b,s:o,s:o,s:f,s:o,s:o,s:o,s:o}", "run_id",
                  (json_int_t)run->id, "label", tc_json_string(run->label), "simulated",
                  run->simulated, "profile", tc_json_string(p->name), "currency",
                  tc_json_string(p->currency), "cloud", r->is_cloud, "cost_per_million_tokens",
                  num_or_null(r->has_cost, r->cost_per_million_tokens), "cost_per_month",
                  num_or_null(r->has_cost, r->per_month), "tokens_per_month", r->tokens_per_month,
                  "terms", terms, "term_notes", notes, "inputs", inputs, "energy", energy);
    if (doc && set->is_group) {
        json_t *ids = json_array();
        for (size_t i = 0; i < set->n; i++)
            json_array_append_new(ids, json_integer(set->runs[i].id));
        json_object_set_new(doc, "group",
                            json_pack("{s:o,s:o,s:f,s:f,s:b}", "name", tc_json_string(set->name),
                                      "run_ids", ids, "throughput_mean", spread->mean,
                                      "throughput_cv", spread->cv, "noisy", spread->noisy));
    }
    if (doc && r->is_cloud)
        json_object_set_new(doc, "cloud_busy_cost_per_million_tokens",
                            json_real(r->cloud_busy_cost_per_million_tokens));
    if (doc && r->has_demand)
        json_object_set_new(doc, "demand",
                            json_pack("{s:f,s:I,s:o}", "tokens_per_month",
                                      r->demand_tokens_per_month, "devices_needed",
                                      (json_int_t)r->devices_needed, "cost_per_month",
                                      num_or_null(r->has_cost, r->fleet_per_month)));
    return doc;
}

static void print_term(const char *name, const tc_cost_term *t, const char *currency)
{
    if (t->included)
        printf("  %-22s %s\n", name, t->why);
    else if (t->available)
        printf("  %-22s %12.2f %s/month\n", name, t->value, currency);
    else
        printf("  %-22s not available: %s\n", name, t->why);
}

static void print_cost(const tc_runset *set, const tc_group_stat *spread, const tc_cost_profile *p,
                       const tc_cost_result *r)
{
    const tc_run_info *run = &set->runs[0];
    if (set->is_group)
        printf("%sCost of group '%s' (%zu runs, mean throughput, CV %.1f%%%s) under %s\n",
               run->simulated ? "SIMULATED " : "", set->name, set->n, spread->cv * 100,
               spread->noisy ? ": NOISY, over 3%" : "", p->name);
    else
        printf("%sCost of run %lld (%s) under %s\n", run->simulated ? "SIMULATED " : "",
               (long long)run->id, run->label[0] ? run->label : "no label", p->name);
    puts("Inputs:");
    for (int i = 0; i < r->n_inputs; i++) {
        const tc_cost_input *in = &r->inputs[i];
        if (in->source == TC_COST_UNAVAILABLE)
            printf("  %-24s %14s  %-12s (unavailable)\n", in->name, "n/a", in->unit);
        else
            printf("  %-24s %14.6g  %-12s (%s)\n", in->name, in->value, in->unit,
                   tc_cost_source_name(in->source));
    }
    printf("Per month (%.2f days):\n", TC_COST_MONTH_DAYS);
    print_term(r->is_cloud ? "rental" : "hardware", &r->hardware, p->currency);
    print_term("electricity", &r->electricity, p->currency);
    print_term("operations", &r->operations, p->currency);
    printf("  %-22s %12.4g tokens/month (at the utilization above)\n", "output tokens",
           r->tokens_per_month);
    if (r->has_cost)
        printf("Cost per million output tokens: %.4f %s\n", r->cost_per_million_tokens,
               p->currency);
    else
        puts("Cost per million output tokens: not available (a term above is missing)");
    if (r->is_cloud)
        printf("  at full use (price per hour / tokens per hour): %.4f %s per million\n",
               r->cloud_busy_cost_per_million_tokens, p->currency);
    if (r->has_demand)
        printf("Demand %.4g tokens/month: %lld device(s)\n", r->demand_tokens_per_month,
               r->devices_needed);
    if (r->has_energy)
        printf("Energy (%s power, device only, no PUE): %.4g J/token, %.4g tokens/kWh, "
               "%.4g tokens/s per W\n",
               tc_cost_source_name(r->energy_source), r->joules_per_token, r->tokens_per_kwh,
               r->tokens_per_s_per_watt);
    else
        puts("Energy: not available (no power measured and no [power] busy_watts)");
}

static int price(tc_store *st, const tc_runset *set, const tc_cost_profile *p, int json)
{
    tc_figures *f = NULL;
    tc_cost_measured m;
    tc_group_stat spread;
    tc_cost_result r;
    char warn[TC_FIGURES_MAX_WARNINGS][200];
    int code = tc_cli_runset_load(st, set, &f);
    if (code)
        return code;
    tc_figures_mean_cost_inputs(f, set->n, &m, &spread);
    int n_warn = tc_figures_quality_warnings(set->is_group ? "the group" : "the run", set, f, warn,
                                             TC_FIGURES_MAX_WARNINGS);
    tc_runset_figures_free(f, set->n);
    if (tc_cost_compute(p, &m, &r) != TC_OK) {
        tc_cli_error("cost: '%s' has no output throughput (no completed request), so no cost "
                     "per token",
                     set->name);
        return TC_EXIT_RUNTIME;
    }
    if (!json) {
        print_cost(set, &spread, p, &r);
        for (int i = 0; i < n_warn; i++)
            printf("WARNING %s\n", warn[i]);
        return 0;
    }
    char err[256];
    json_t *doc = cost_json(set, &spread, p, &r);
    json_t *w = json_array();
    for (int i = 0; i < n_warn; i++)
        json_array_append_new(w, tc_json_string(warn[i]));
    if (doc)
        json_object_set_new(doc, "warnings", w);
    else
        json_decref(w);
    if (!doc) {
        tc_cli_error("cost: out of memory building the JSON document");
        code = TC_EXIT_RUNTIME;
    } else if (tc_json_dump(stdout, doc, err, sizeof err) != TC_OK) {
        tc_cli_error("cost: %s", err);
        code = TC_EXIT_RUNTIME;
    }
    json_decref(doc);
    return code;
}

int tc_cmd_cost(int argc, char **argv)
{
    cost_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("cost");
    if (a.help) {
        tc_cmd_cost_help(stdout);
        return 0;
    }
    tc_cost_profile p;
    char err[1024];
    if (tc_cost_profile_load(a.profile, &p, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return TC_EXIT_USAGE;
    }
    tc_store *st;
    tc_runset set;
    int code = tc_cli_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    code = tc_cli_runset_find(st, a.run, &set);
    if (!code)
        code = price(st, &set, &p, a.json);
    tc_runset_free(&set);
    tc_store_close(st);
    return code;
}
