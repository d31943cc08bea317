/* truecost kernels --json: the kernels document (docs/json.md). Times are
 * whole nanoseconds, shares and ratios keep every digit; a missing value
 * is null. */
#include <jansson.h>
#include <string.h>

#include "core/tc_json.h"
#include "report/report_kernels.h"

#define NORM_BYTES 1024

/* Appends v to arr; -1 when v is NULL (memory ran out) or the append failed. */
static int push(json_t *arr, json_t *v)
{
    return v && json_array_append_new(arr, v) == 0 ? 0 : -1;
}

static json_t *effort_json(const tc_kernel_effort *e)
{
    return json_pack("{s:f,s:f,s:f}", "low", e->low, "mode", e->mode, "high", e->high);
}

static const char *rule_from(const tc_kernel *k)
{
    return !k->rule ? "default" : k->rule->line ? "user" : "builtin";
}

static json_t *kernel_json(const tc_kernel *k, int64_t total)
{
    char norm[NORM_BYTES];
    tc_kernels_normalise_name(k->name, norm, sizeof norm);
    return json_pack(
        "{s:o,s:o,s:s,s:o,s:s,s:o,s:I,s:f,s:o,s:o,s:i}", "name", tc_json_string(k->name),
        "normalised", tc_json_string(norm), "class", tc_kernels_class_name(k->klass), "rule",
        k->rule ? tc_json_string(k->rule->pattern) : json_null(), "rule_from", rule_from(k),
        "rule_line", k->rule && k->rule->line ? json_integer(k->rule->line) : json_null(),
        "time_ns", (json_int_t)k->time_ns, "share", (double)k->time_ns / (double)total, "calls",
        k->has_calls ? json_integer((json_int_t)k->calls) : json_null(), "mean_ns",
        tc_json_num(k->has_calls && k->calls,
                    (double)k->time_ns / (double)(k->calls ? k->calls : 1)),
        "line", k->line);
}

static json_t *kernel_list(const tc_kernel *const *k, size_t n, int64_t total)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (push(arr, kernel_json(k[i], total)) < 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

static json_t *classes_json(const tc_kernel_profile *p)
{
    json_t *o = json_object();
    for (int c = 0; o && c < TC_KCLASS_N; c++) {
        const tc_kernel_class_sum *s = &p->cls[c];
        json_t *v = json_pack("{s:I,s:f,s:I}", "time_ns", (json_int_t)s->time_ns, "share", s->share,
                              "kernels", (json_int_t)s->kernels);
        if (!v || json_object_set_new(o, tc_kernels_class_name((tc_kernel_class)c), v) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *fallback_json(const tc_kernel_fallback *f)
{
    return json_pack("{s:b,s:I,s:I,s:I,s:o,s:o}", "probable", f->probable, "softmax_ns",
                     (json_int_t)f->softmax_ns, "gemm_ns", (json_int_t)f->gemm_ns,
                     "batched_gemm_ns", (json_int_t)f->batched_gemm_ns, "softmax_kernel",
                     f->softmax ? tc_json_string(f->softmax->name) : json_null(),
                     "batched_gemm_kernel",
                     f->batched ? tc_json_string(f->batched->name) : json_null());
}

static json_t *profile_json(const tc_kernels_doc *d, size_t i)
{
    const tc_kernel_profile *p = d->p[i];
    const tc_kernel_table *t = p->t;
    const char *role = d->n == 1 ? "single" : i == 0 ? "incumbent" : "alternative";
    return json_pack("{s:s,s:o,s:s,s:I,s:I,s:I,s:I,s:b,s:o,s:o,s:o,s:o}", "role", role, "file",
                     tc_json_string(d->files[i]), "format", tc_kernels_format_name(t->format),
                     "rows", (json_int_t)t->rows, "skipped_rows", (json_int_t)t->skipped,
                     "kernel_count", (json_int_t)t->n, "total_ns", (json_int_t)t->total_ns,
                     "cut_names", t->cut_names, "classes", classes_json(p), "kernels",
                     kernel_list(p->by_time, p->n, t->total_ns), "suspects",
                     kernel_list(p->suspects, p->n_suspects, t->total_ns), "fallback",
                     fallback_json(&p->fallback));
}

static json_t *ratio(int64_t b, int64_t a)
{
    return tc_json_num(a > 0, (double)b / (double)(a > 0 ? a : 1));
}

static json_t *class_rows(const tc_kernel_compare *c)
{
    json_t *arr = json_array();
    for (int k = 0; arr && k < TC_KCLASS_N; k++) {
        const tc_kernel_class_sum *a = &c->a->cls[k], *b = &c->b->cls[k];
        if (push(arr, json_pack("{s:s,s:I,s:I,s:o,s:f,s:f,s:f}", "class",
                                tc_kernels_class_name((tc_kernel_class)k), "incumbent_ns",
                                (json_int_t)a->time_ns, "alternative_ns", (json_int_t)b->time_ns,
                                "ratio", ratio(b->time_ns, a->time_ns), "incumbent_share", a->share,
                                "alternative_share", b->share, "share_change",
                                c->share_change[k])) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *count_or_null(int has, uint64_t n)
{
    return has ? json_integer((json_int_t)n) : json_null();
}

static json_t *matched_json(const tc_kernel_compare *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < c->n_matched; i++) {
        const tc_kernel_match *m = &c->matched[i];
        if (push(arr, json_pack("{s:o,s:s,s:I,s:I,s:o,s:o,s:o}", "name", tc_json_string(m->name),
                                "class", tc_kernels_class_name(m->klass), "incumbent_ns",
                                (json_int_t)m->a_ns, "alternative_ns", (json_int_t)m->b_ns, "ratio",
                                ratio(m->b_ns, m->a_ns), "incumbent_calls",
                                count_or_null(m->a_has_calls, m->a_calls), "alternative_calls",
                                count_or_null(m->b_has_calls, m->b_calls))) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *grew_json(const tc_kernel_compare *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < c->n_grew; i++)
        if (push(arr, json_string(tc_kernels_class_name(c->grew[i]))) < 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

static json_t *comparison_json(const tc_kernel_compare *c)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:b}", "classes", class_rows(c), "total_ratio",
                     ratio(c->b->t->total_ns, c->a->t->total_ns), "share_grew", grew_json(c),
                     "matched", matched_json(c), "alternative_only",
                     kernel_list(c->b_only, c->n_b_only, c->b->t->total_ns), "attention_fell_back",
                     c->attention_fell_back);
}

static json_t *names_json(const tc_kernel_tune *e)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < e->n_kernels; i++)
        if (push(arr, tc_json_string(e->kernels[i]->name)) < 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

static json_t *entry_json(const tc_kernel_compare *c, const tc_kernel_tune *e)
{
    return json_pack("{s:s,s:I,s:I,s:I,s:f,s:o,s:I,s:o,s:o,s:b}", "class",
                     tc_kernels_class_name(e->klass), "incumbent_ns", (json_int_t)e->a_ns,
                     "alternative_ns", (json_int_t)e->b_ns, "saving_ns", (json_int_t)e->saving_ns,
                     "saving_share", (double)e->saving_ns / (double)c->b->t->total_ns, "kernels",
                     names_json(e), "kernel_count", (json_int_t)e->n_kernels,
                     "effort_days_per_kernel", effort_json(&c->per_kernel), "effort_days",
                     effort_json(&e->days), "suspect_fallback", e->suspect_fallback);
}

static json_t *tuning_json(const tc_kernel_compare *c)
{
    json_t *entries = json_array();
    for (size_t i = 0; entries && i < c->n_tune; i++)
        if (push(entries, entry_json(c, &c->tune[i])) < 0) {
            json_decref(entries);
            entries = NULL;
        }
    return json_pack(
        "{s:o,s:s,s:f,s:i,s:o,s:I,s:o,s:s}", "effort_days_per_kernel", effort_json(&c->per_kernel),
        "effort_source", "default", "min_share", TC_KERNELS_TUNE_MIN_SHARE, "max_kernels_per_entry",
        TC_KERNELS_TUNE_MAX_KERNELS, "entries", entries, "saving_ns", (json_int_t)c->saving_ns,
        "t_perf_days", effort_json(&c->t_perf), "rule", TC_KERNELS_EFFORT_RULE);
}

static json_t *warnings_json(const tc_kernels_doc *d)
{
    char lines[TC_KERNELS_MAX_WARNINGS][512];
    int n = tc_report_kernels_warnings(d, lines);
    json_t *arr = json_array();
    for (int i = 0; arr && i < n; i++)
        if (push(arr, tc_json_string(lines[i])) < 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

json_t *tc_report_kernels_json(const tc_kernels_doc *d)
{
    json_t *profiles = json_array();
    for (size_t i = 0; profiles && i < d->n; i++)
        if (push(profiles, profile_json(d, i)) < 0) {
            json_decref(profiles);
            profiles = NULL;
        }
    return json_pack("{s:o,s:I,s:o,s:o,s:o,s:o,s:s}", "rules_file",
                     d->rules_file ? tc_json_string(d->rules_file) : json_null(), "top",
                     (json_int_t)d->top, "profiles", profiles, "comparison",
                     d->c ? comparison_json(d->c) : json_null(), "tuning",
                     d->c ? tuning_json(d->c) : json_null(), "warnings", warnings_json(d), "note",
                     TC_KERNELS_NOTE);
}
