/* The gatherer's readers of documents truecost wrote for the user to keep:
 * a profiler's tuning list (`kernels A B --json`: T_perf and the suspects
 * decide names) and a memory fit (`fit --json`: the checklist's memory
 * item). Each names the file and says what it expected. */
#include "assess/evidence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "assess/evidence_internal.h"
#include "core/tc_file.h"
#include "core/tc_number.h"

/* A kernels document lists every kernel of both files: a million-row trace
 * of distinct names stays well under this. */
#define MAX_DOC_BYTES (512u << 20)

static tc_err parse_doc(const char *name, const char *text, size_t len, const char *what,
                        json_t **doc, char *err, size_t errlen)
{
    json_error_t je;
    *doc = json_loadb(text, len, 0, &je);
    if (!*doc || !json_is_object(*doc)) {
        json_decref(*doc);
        *doc = NULL;
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s: not %s (%s at line %d)", name, what,
                       je.text[0] ? je.text : "not a JSON object", je.line);
    }
    return TC_OK;
}

static tc_err read_text(const char *path, const char *what, char **text, size_t *len, char *err,
                        size_t errlen)
{
    tc_err rc = tc_read_file(path, MAX_DOC_BYTES, what, text, len, err, errlen);
    return rc == TC_OK ? rc : rc == TC_ERR_PARSE ? TC_ERR_INVALID : tc_evidence_unreadable(rc);
}

static const char KERNELS_DOC[] = "a kernels document ('truecost kernels A B --json')";
static const char FIT_DOC[] = "a fit document ('truecost fit MODEL --gpu CARD --json')";

/* {"low", "mode", "high"}: person-days, 0 <= low <= mode <= high. */
static int read_days(json_t *o, double out[3])
{
    static const char *const keys[] = {"low", "mode", "high"};
    for (int i = 0; i < 3; i++) {
        json_t *v = json_object_get(o, keys[i]);
        out[i] = json_number_value(v);
        if (!json_is_number(v) || !(out[i] >= 0 && out[i] <= 1e6))
            return -1;
    }
    return out[0] <= out[1] && out[1] <= out[2] ? 0 : -1;
}

/* "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, ...>(...)"
 * -> "cunn_SoftMaxForward": the name before its template and arguments,
 * after its namespaces, at most 48 bytes. */
static void short_kernel(const char *name, char *out, size_t outlen)
{
    if (strncmp(name, "void ", 5) == 0)
        name += 5;
    static const char anon[] = "(anonymous namespace)";
    size_t end = 0;
    while (name[end] && name[end] != '<' &&
           (name[end] != '(' || strncmp(name + end, anon, sizeof anon - 1) == 0))
        end += name[end] == '(' ? sizeof anon - 1 : 1;
    size_t start = 0;
    for (size_t i = 0; i + 1 < end; i++)
        if (name[i] == ':' && name[i + 1] == ':')
            start = i + 2;
    size_t n = end - start;
    if (n > 48)
        snprintf(out, outlen, "%.45s...", name + start);
    else
        snprintf(out, outlen, "%.*s", (int)n, name + start);
}

static int read_entry(json_t *e, tc_evidence *ev)
{
    const char *cls = json_string_value(json_object_get(e, "class"));
    json_t *count = json_object_get(e, "kernel_count");
    json_t *share = json_object_get(e, "saving_share");
    json_t *names = json_object_get(e, "kernels");
    if (!cls || !json_is_integer(count) || json_integer_value(count) < 0 ||
        json_integer_value(count) > 1000000 || !json_is_number(share) || !json_is_array(names))
        return -1;
    ev->kernel_count += (int)json_integer_value(count);
    if (ev->n_suspects == TC_EVIDENCE_SUSPECTS)
        return 0;
    tc_evidence_suspect *s = &ev->suspects[ev->n_suspects++];
    snprintf(s->kernel_class, sizeof s->kernel_class, "%s", cls);
    const char *first = json_string_value(json_array_get(names, 0));
    short_kernel(first ? first : "?", s->kernel, sizeof s->kernel);
    s->kernels = (int)json_integer_value(count);
    s->saving_share = json_number_value(share);
    return 0;
}

/* The class shares of both platforms, for the report's bars. */
static void read_classes(json_t *classes, tc_evidence *ev)
{
    size_t i;
    json_t *c;
    json_array_foreach(classes, i, c)
    {
        const char *name = json_string_value(json_object_get(c, "class"));
        if (!name || ev->n_kernel_classes == TC_EVIDENCE_KERNEL_CLASSES)
            continue;
        tc_evidence_kernel_class *k = &ev->kernel_classes[ev->n_kernel_classes++];
        snprintf(k->name, sizeof k->name, "%s", name);
        k->share_a = json_number_value(json_object_get(c, "incumbent_share"));
        k->share_b = json_number_value(json_object_get(c, "alternative_share"));
    }
}

static tc_err read_tuning(const char *path, json_t *doc, tc_evidence *ev, double days[3], char *err,
                          size_t errlen)
{
    json_t *tuning = json_object_get(doc, "tuning");
    if (!json_is_array(json_object_get(doc, "profiles")) || !tuning)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s: no \"profiles\" or \"tuning\": is it 'truecost kernels --json' output?",
                       path);
    if (json_is_null(tuning))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s holds one profile, no tuning list: give 'truecost kernels INCUMBENT "
                       "ALTERNATIVE --json' (the same work profiled on each platform)",
                       path);
    json_t *entries = json_object_get(tuning, "entries");
    if (!json_is_array(entries) || read_days(json_object_get(tuning, "t_perf_days"), days) < 0)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s: tuning: expected \"entries\" and \"t_perf_days\" {low, mode, high} in "
                       "order: is it 'truecost kernels --json' output?",
                       path);
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        if (read_entry(e, ev) < 0)
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "%s: tuning.entries[%zu]: expected \"class\", \"kernel_count\", "
                           "\"saving_share\" and \"kernels\"",
                           path, i);
    }
    json_t *cmp = json_object_get(doc, "comparison");
    ev->attention_fell_back = json_is_true(json_object_get(cmp, "attention_fell_back"));
    read_classes(json_object_get(cmp, "classes"), ev);
    return TC_OK;
}

tc_err tc_evidence_read_kernels(const char *path, const tc_lockin *a, tc_evidence *ev,
                                tc_lockin_overrides *ov, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = read_text(path, KERNELS_DOC, &text, &len, err, errlen);
    if (rc == TC_OK)
        rc = tc_evidence_parse_kernels(path, text, len, a, ev, ov, err, errlen);
    free(text);
    return rc;
}

tc_err tc_evidence_parse_kernels(const char *path, const char *text, size_t len, const tc_lockin *a,
                                 tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    json_t *doc = NULL;
    tc_err rc = parse_doc(path, text, len, KERNELS_DOC, &doc, err, errlen);
    double days[3];
    if (rc == TC_OK)
        rc = read_tuning(path, doc, ev, days, err, errlen);
    json_decref(doc);
    if (rc != TC_OK)
        return rc;
    const tc_lockin_range *per = a ? &a->kernel_effort : NULL;
    if (per && per->valid) {
        /* The assessment's own effort per kernel replaces the list's. */
        days[0] = ev->kernel_count * per->low;
        days[1] = ev->kernel_count * tc_lockin_range_point(per);
        days[2] = ev->kernel_count * per->high;
    }
    ev->has_kernels = 1;
    ev->kernel_days_low = days[0];
    ev->kernel_days_mode = days[1];
    ev->kernel_days_high = days[2];
    ov->has_perf_days = 1;
    ov->perf_low = days[0];
    ov->perf_mode = days[1];
    ov->perf_high = days[2];
    snprintf(ov->perf_days_source, sizeof ov->perf_days_source, "%d kernel(s) x %s, %s",
             ev->kernel_count,
             per && per->valid ? "[effort] performance_per_kernel" : "the list's effort", path);
    if (ev->kernel_count == 0)
        tc_evidence_note(ev,
                         "--kernels %s: the tuning list is empty (no class of the alternative's "
                         "kernels is slower by 1%% of its time): T_perf is 0 person-days",
                         path);
    return TC_OK;
}

/* ---- fit --------------------------------------------------------------------- */

static tc_evidence_fit_verdict fit_verdict(const char *v)
{
    return !v                               ? TC_FIT_NO_CARD
           : strcmp(v, "fits") == 0         ? TC_FIT_FITS
           : strcmp(v, "tight") == 0        ? TC_FIT_TIGHT
           : strcmp(v, "does not fit") == 0 ? TC_FIT_DOES_NOT_FIT
                                            : TC_FIT_NO_CARD;
}

static long long int_or(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* The largest setting that fits the card, in the task's words. */
static void largest_words(json_t *doc, json_t *card, char *out, size_t outlen)
{
    json_t *w = json_object_get(doc, "workload");
    json_t *l = json_object_get(card, "largest");
    long long conc = int_or(l, "concurrency"), ctx = int_or(l, "ctx");
    long long mb = int_or(l, "micro_batch"), gpus = int_or(l, "gpus_needed");
    long long at_ctx = int_or(w, "ctx"), seq = int_or(w, "seq");
    size_t n = 0;
    if (conc > 0 && at_ctx > 0)
        n = (size_t)snprintf(out, outlen, "%lld sequence(s) at ctx %lld", conc, at_ctx);
    else if (ctx > 0)
        n = (size_t)snprintf(out, outlen, "one sequence of %lld tokens", ctx);
    else if (mb > 0)
        n = (size_t)snprintf(out, outlen, "micro-batch %lld at seq %lld", mb, seq);
    else
        n = (size_t)snprintf(out, outlen, "nothing on one card");
    if (gpus > 1 && n < outlen)
        snprintf(out + n, outlen - n, "; %lld cards hold the workload as given", gpus);
}

/* The terms and every card, for the report's bars. */
static void read_terms_and_cards(json_t *doc, json_t *cards, tc_evidence *ev)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(doc, "terms"), i, t)
    {
        const char *name = json_string_value(json_object_get(t, "name"));
        if (!name || ev->n_fit_terms == TC_EVIDENCE_FIT_TERMS)
            continue;
        tc_evidence_fit_term *f = &ev->fit_terms[ev->n_fit_terms++];
        snprintf(f->name, sizeof f->name, "%s", name);
        f->bytes = json_number_value(json_object_get(t, "bytes"));
    }
    json_array_foreach(cards, i, t)
    {
        if (ev->n_fit_cards == TC_EVIDENCE_FIT_CARDS)
            break;
        tc_evidence_fit_card *c = &ev->fit_cards[ev->n_fit_cards++];
        const char *name = json_string_value(json_object_get(t, "name"));
        const char *verdict = json_string_value(json_object_get(t, "verdict"));
        snprintf(c->name, sizeof c->name, "%s", name ? name : "?");
        snprintf(c->verdict, sizeof c->verdict, "%s", verdict ? verdict : "?");
        c->capacity_bytes = json_number_value(json_object_get(t, "capacity_bytes"));
        c->budget_bytes = json_number_value(json_object_get(t, "budget_bytes"));
        c->need_bytes = json_number_value(json_object_get(t, "need_bytes"));
    }
}

tc_err tc_evidence_read_fit(const char *path, tc_evidence *ev, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = read_text(path, FIT_DOC, &text, &len, err, errlen);
    if (rc == TC_OK)
        rc = tc_evidence_parse_fit(path, text, len, ev, err, errlen);
    free(text);
    return rc;
}

tc_err tc_evidence_parse_fit(const char *path, const char *text, size_t len, tc_evidence *ev,
                             char *err, size_t errlen)
{
    json_t *doc = NULL;
    tc_err rc = parse_doc(path, text, len, FIT_DOC, &doc, err, errlen);
    if (rc != TC_OK)
        return rc;
    json_t *cards = json_object_get(doc, "cards");
    if (!json_is_array(cards) || !json_is_array(json_object_get(doc, "terms"))) {
        json_decref(doc);
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s: no \"cards\" or \"terms\": is it 'truecost fit --json' output?", path);
    }
    ev->has_fit = 1;
    ev->fit_verdict = TC_FIT_NO_CARD;
    read_terms_and_cards(doc, cards, ev);
    size_t i;
    json_t *c;
    json_array_foreach(cards, i, c)
    {
        tc_evidence_fit_verdict v = fit_verdict(json_string_value(json_object_get(c, "verdict")));
        double spare = json_number_value(json_object_get(c, "spare_share"));
        /* The worst card: by verdict, then by the least to spare. */
        if (v == TC_FIT_NO_CARD ||
            (ev->fit_verdict != TC_FIT_NO_CARD &&
             (v < ev->fit_verdict || (v == ev->fit_verdict && spare >= ev->fit_spare_share))))
            continue;
        ev->fit_verdict = v;
        const char *name = json_string_value(json_object_get(c, "name"));
        snprintf(ev->fit_card, sizeof ev->fit_card, "%s", name ? name : "?");
        ev->fit_need_bytes = json_number_value(json_object_get(c, "need_bytes"));
        ev->fit_budget_bytes = json_number_value(json_object_get(c, "budget_bytes"));
        ev->fit_spare_share = json_number_value(json_object_get(c, "spare_share"));
        largest_words(doc, c, ev->fit_largest, sizeof ev->fit_largest);
    }
    json_decref(doc);
    return TC_OK;
}
