#include "cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *tc_cost_source_name(tc_cost_source s)
{
    switch (s) {
    case TC_COST_MEASURED:
        return "measured";
    case TC_COST_PROFILE:
        return "profile";
    case TC_COST_DEFAULT:
        return "default";
    case TC_COST_UNAVAILABLE:
        break;
    }
    return "unavailable";
}

static const tc_cost_input *add(tc_cost_result *r, const char *name, const char *unit, double v,
                                tc_cost_source src)
{
    /* The fixed inputs below never exceed TC_COST_MAX_INPUTS. */
    tc_cost_input *in = &r->inputs[r->n_inputs++];
    *in = (tc_cost_input){name, unit, src == TC_COST_UNAVAILABLE ? 0 : v, src};
    return in;
}

/* The profile's value, else the default. */
static const tc_cost_input *add_field(tc_cost_result *r, const char *name, const char *unit,
                                      const tc_cost_field *f, double dflt)
{
    return f->valid ? add(r, name, unit, f->value, TC_COST_PROFILE)
                    : add(r, name, unit, dflt, TC_COST_DEFAULT);
}

/* The profile's value, else the run's measurement, else unavailable. */
static const tc_cost_input *add_power(tc_cost_result *r, const char *name, const tc_cost_field *f,
                                      int has_measured, double measured)
{
    if (f->valid)
        return add(r, name, "W", f->value, TC_COST_PROFILE);
    if (has_measured)
        return add(r, name, "W", measured, TC_COST_MEASURED);
    return add(r, name, "W", 0, TC_COST_UNAVAILABLE);
}

static void set_term(tc_cost_term *t, double value)
{
    t->available = 1;
    t->value = value;
}

static void hardware_term(const tc_cost_profile *p, tc_cost_result *r)
{
    if (p->is_cloud) {
        double hourly =
            add_field(r, "cloud_price_per_hour", "currency/h", &p->cloud_price_per_hour, 0)->value;
        set_term(&r->hardware, hourly * TC_COST_MONTH_H);
        return;
    }
    double price = add_field(r, "hardware_price", "currency", &p->hw_price, 0)->value;
    double months = add_field(r, "amortize_months", "months", &p->amortize_months, 1)->value;
    double residual =
        add_field(r, "residual_fraction", "fraction", &p->residual_fraction, 0)->value;
    set_term(&r->hardware, price * (1 - residual) / months);
}

static void electricity_term(const tc_cost_profile *p, const tc_cost_measured *m, double u,
                             tc_cost_result *r)
{
    const tc_cost_input *busy =
        add_power(r, "busy_watts", &p->busy_power_w, m->has_power, m->busy_power_w);
    r->power_scope = busy->source == TC_COST_PROFILE
                         ? (p->power_scope ? (tc_power_scope)p->power_scope : TC_SCOPE_BOX)
                     : busy->source == TC_COST_MEASURED ? m->power_scope
                                                        : TC_SCOPE_NONE;
    if (p->is_cloud) {
        /* busy_power_w is kept for the energy figures only. */
        r->electricity.included = 1;
        r->electricity.available = 1;
        snprintf(r->electricity.why, sizeof r->electricity.why,
                 "included in the cloud price per hour");
        return;
    }
    const tc_cost_input *idle =
        add_power(r, "idle_watts", &p->idle_power_w, m->has_idle, m->idle_power_w);
    double kwh_price = add_field(r, "price_per_kwh", "currency/kWh", &p->price_per_kwh, 0)->value;
    double pue = add_field(r, "pue", "ratio", &p->pue, 1)->value;
    if (busy->source == TC_COST_UNAVAILABLE) {
        snprintf(r->electricity.why, sizeof r->electricity.why,
                 "no busy power: the run has no power telemetry and the profile no [power] "
                 "busy_watts");
        return;
    }
    /* At full utilisation the idle power is never drawn, so not needed. */
    double idle_w = idle->source == TC_COST_UNAVAILABLE ? 0 : idle->value;
    if (idle->source == TC_COST_UNAVAILABLE && u < 1) {
        snprintf(r->electricity.why, sizeof r->electricity.why,
                 "no idle power: the run has no idle baseline and the profile no [power] "
                 "idle_watts");
        return;
    }
    double avg_w = busy->value * u + idle_w * (1 - u);
    set_term(&r->electricity, avg_w * TC_COST_MONTH_H * pue / 1000.0 * kwh_price);
}

static void operations_term(const tc_cost_profile *p, tc_cost_result *r)
{
    double hours =
        add_field(r, "ops_hours_per_month", "h/month", &p->ops_hours_per_month, 0)->value;
    double rate = add_field(r, "hourly_rate", "currency/h", &p->hourly_rate, 0)->value;
    double total = hours * rate;
    if (!p->is_cloud) {
        double days = add_field(r, "adaptation_days", "days", &p->adaptation_days, 0)->value;
        double day_rate = add_field(r, "day_rate", "currency/day", &p->day_rate, 0)->value;
        total += days * day_rate / p->amortize_months.value;
    }
    set_term(&r->operations, total);
}

/* J/token: the measured energy when the busy power is the measured one,
 * else the busy power over the throughput. Device energy, no PUE. */
static void energy_figures(const tc_cost_measured *m, tc_cost_result *r)
{
    const tc_cost_input *busy = tc_cost_input_get(r, "busy_watts");
    if (!busy || busy->source == TC_COST_UNAVAILABLE || busy->value <= 0)
        return;
    r->has_energy = 1;
    r->energy_source = busy->source;
    r->joules_per_output_token = busy->source == TC_COST_MEASURED && m->joules_per_output_token > 0
                                     ? m->joules_per_output_token
                                     : busy->value / m->output_tokens_per_s;
    r->tokens_per_kwh = 3.6e6 / r->joules_per_output_token;
    r->tokens_per_s_per_watt = m->output_tokens_per_s / busy->value;
}

static void demand(const tc_cost_profile *p, tc_cost_result *r)
{
    if (!p->tokens_per_month.valid)
        return;
    r->has_demand = 1;
    r->demand_tokens_per_month = p->tokens_per_month.value;
    add(r, "demand_tokens_per_month", "tokens/month", r->demand_tokens_per_month, TC_COST_PROFILE);
    r->devices_needed = (long long)ceil(r->demand_tokens_per_month / r->tokens_per_month);
    r->fleet_per_month = r->has_cost ? r->per_month * (double)r->devices_needed : 0;
}

tc_err tc_cost_compute(const tc_cost_profile *p, const tc_cost_measured *m, tc_cost_result *out)
{
    if (!p || !m || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!(m->output_tokens_per_s > 0) || !isfinite(m->output_tokens_per_s))
        return TC_ERR_INVALID;
    out->is_cloud = p->is_cloud;
    out->steady = m->steady;
    add(out, "output_tokens_per_s", "tokens/s", m->output_tokens_per_s, TC_COST_MEASURED);
    double u = add_field(out, "utilization", "fraction", &p->utilization, 1)->value;
    out->tokens_per_month = m->output_tokens_per_s * u * TC_COST_MONTH_S;

    hardware_term(p, out);
    electricity_term(p, m, u, out);
    operations_term(p, out);
    out->has_cost =
        out->hardware.available && out->electricity.available && out->operations.available;
    if (out->has_cost) {
        out->per_month = out->hardware.value + out->electricity.value + out->operations.value;
        out->cost_per_million_tokens = out->per_month / out->tokens_per_month * 1e6;
    }
    if (p->is_cloud)
        out->cloud_busy_cost_per_million_tokens =
            p->cloud_price_per_hour.value / (m->output_tokens_per_s * 3600.0) * 1e6;
    energy_figures(m, out);
    demand(p, out);
    return TC_OK;
}

const tc_cost_input *tc_cost_input_get(const tc_cost_result *r, const char *name)
{
    for (int i = 0; r && name && i < r->n_inputs; i++)
        if (strcmp(r->inputs[i].name, name) == 0)
            return &r->inputs[i];
    return NULL;
}
