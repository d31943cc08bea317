/* The gap table: matching operators to the support list, risk classes,
 * T_op, and reading T_op back from a saved table. */
#include "gaps.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "gaps_internal.h"

const char *tc_gaps_status_name(tc_gap_status s)
{
    static const char *const names[] = {"native", "fallback", "missing", "unknown"};
    return (unsigned)s < TC_GAP_N_STATUS ? names[s] : "?";
}

const char *tc_gaps_risk_name(tc_gap_risk r)
{
    static const char *const names[] = {"low", "medium", "medium-high", "high"};
    return (unsigned)r <= TC_RISK_HIGH ? names[r] : "?";
}

const char *tc_gaps_match_name(tc_gap_match m)
{
    static const char *const names[] = {"none", "exact", "case", "normalised", "prefix"};
    return (unsigned)m <= TC_MATCH_PREFIX ? names[m] : "?";
}

const char *tc_gaps_format_name(tc_gap_format f)
{
    static const char *const names[] = {"profiler_table", "profiler_csv", "plain_csv"};
    return (unsigned)f <= TC_GAPS_PLAIN_CSV ? names[f] : "?";
}

const char *tc_gaps_source_name(tc_gap_share_source s)
{
    static const char *const names[] = {"device_time", "cpu_time", "count", "share"};
    return (unsigned)s <= TC_SHARE_GIVEN ? names[s] : "?";
}

/* ---- names ---- */

static void lower_copy(const char *s, char *out, size_t outlen)
{
    size_t n = 0;
    for (; s[n] && n + 1 < outlen; n++)
        out[n] = (char)tolower((unsigned char)s[n]);
    out[n] = '\0';
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void tc_gaps_normalise_name(const char *name, char *out, size_t outlen)
{
    static const char *const namespaces[] = {"aten::", "aten.", "prims::", "prims.", "prim::"};
    if (!outlen)
        return;
    char low[256];
    lower_copy(name, low, sizeof low);
    const char *s = low;
    if (starts(s, "torch.ops."))
        s += strlen("torch.ops.");
    for (size_t i = 0; i < sizeof namespaces / sizeof namespaces[0]; i++)
        if (starts(s, namespaces[i])) {
            s += strlen(namespaces[i]);
            break;
        }
    size_t n = strcspn(s, "."); /* the overload: add.Tensor, mm.default */
    if (n > 1 && s[n - 1] == '_')
        n--; /* in-place: add_ */
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

void tc_gaps_dtype_canon(const char *dtype, char *out, size_t outlen)
{
    static const struct {
        const char *from, *to;
    } aliases[] = {{"float16", "fp16"}, {"half", "fp16"},   {"f16", "fp16"}, {"bfloat16", "bf16"},
                   {"float32", "fp32"}, {"float", "fp32"},  {"f32", "fp32"}, {"tf32", "fp32"},
                   {"float64", "fp64"}, {"double", "fp64"}, {"i8", "int8"},  {"qint8", "int8"},
                   {"i4", "int4"},      {"uint4", "int4"},  {"", "unknown"}, {"?", "unknown"},
                   {"any", "*"}};
    if (!outlen)
        return;
    char low[64];
    lower_copy(dtype, low, sizeof low);
    const char *s = starts(low, "torch.") ? low + 6 : low;
    if (starts(s, "float8") || starts(s, "fp8"))
        s = "fp8"; /* e4m3, e5m2 and their fn/fnuz spellings alike */
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(s, aliases[i].from) == 0) {
            s = aliases[i].to;
            break;
        }
    snprintf(out, outlen, "%s", s);
}

int tc_gaps_glob(const char *pattern, const char *text)
{
    /* Iterative, with one backtrack point: linear enough for any input. */
    const char *star = NULL, *resume = NULL;
    while (*text) {
        if (*pattern == '*') {
            star = pattern++;
            resume = text;
        } else if (*pattern && (*pattern == '?' || tolower((unsigned char)*pattern) ==
                                                       tolower((unsigned char)*text))) {
            pattern++;
            text++;
        } else if (star) {
            pattern = star + 1;
            text = ++resume;
        } else {
            return 0;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

/* ---- risk ---- */

typedef struct builtin_rule {
    const char *pattern;
    tc_gap_risk risk;
    const char *category;
} builtin_rule;

/* The seed's section 4.2, most specific first: a quantised matmul must not
 * fall into the plain GEMM class. The seed's medium class is custom
 * normalisation kernels; the patterns also catch the standard layer_norm,
 * so the category says "normalisation", not "custom". */
static const builtin_rule builtins[] = {
    {"*int4*", TC_RISK_HIGH, "quantised GEMM"},
    {"*int8*", TC_RISK_HIGH, "quantised GEMM"},
    {"*q4*", TC_RISK_HIGH, "quantised GEMM"},
    {"*gptq*", TC_RISK_HIGH, "quantised GEMM"},
    {"*awq*", TC_RISK_HIGH, "quantised GEMM"},
    {"*marlin*", TC_RISK_HIGH, "quantised GEMM"},
    {"*exllama*", TC_RISK_HIGH, "quantised GEMM"},
    {"*quant*gemm*", TC_RISK_HIGH, "quantised GEMM"},
    {"*quant*matmul*", TC_RISK_HIGH, "quantised GEMM"},
    {"*quant*linear*", TC_RISK_HIGH, "quantised GEMM"},
    {"*qmm*", TC_RISK_HIGH, "quantised GEMM"},
    {"*4bit*", TC_RISK_HIGH, "quantised GEMM"},
    {"*nf4*", TC_RISK_HIGH, "quantised GEMM"},
    {"*fp8*", TC_RISK_HIGH, "quantised GEMM"},
    {"*scaled_mm*", TC_RISK_HIGH, "quantised GEMM"},
    {"*flash*", TC_RISK_MEDIUM_HIGH, "fused attention"},
    {"*sdpa*", TC_RISK_MEDIUM_HIGH, "fused attention"},
    {"*scaled_dot_product*", TC_RISK_MEDIUM_HIGH, "fused attention"},
    {"*attention*", TC_RISK_MEDIUM_HIGH, "fused attention"},
    {"*attn*", TC_RISK_MEDIUM_HIGH, "fused attention"},
    {"*rms_norm*", TC_RISK_MEDIUM, "normalisation"},
    {"*rmsnorm*", TC_RISK_MEDIUM, "normalisation"},
    {"*layer_norm*", TC_RISK_MEDIUM, "normalisation"},
    {"*layernorm*", TC_RISK_MEDIUM, "normalisation"},
    {"*group_norm*", TC_RISK_MEDIUM, "normalisation"},
    {"*groupnorm*", TC_RISK_MEDIUM, "normalisation"},
    {"mm", TC_RISK_LOW, "basic GEMM"},
    {"bmm", TC_RISK_LOW, "basic GEMM"},
    {"addmm", TC_RISK_LOW, "basic GEMM"},
    {"addbmm", TC_RISK_LOW, "basic GEMM"},
    {"baddbmm", TC_RISK_LOW, "basic GEMM"},
    {"_addmm_activation", TC_RISK_LOW, "basic GEMM"},
    {"addmv", TC_RISK_LOW, "basic GEMM"},
    {"mv", TC_RISK_LOW, "basic GEMM"},
    {"dot", TC_RISK_LOW, "basic GEMM"},
    {"matmul", TC_RISK_LOW, "basic GEMM"},
    {"linear", TC_RISK_LOW, "basic GEMM"},
    {"*gemm*", TC_RISK_LOW, "basic GEMM"},
    {"*gemv*", TC_RISK_LOW, "basic GEMM"},
};

static int rule_matches(const char *pattern, const char *low, const char *norm)
{
    return tc_gaps_glob(pattern, low) || tc_gaps_glob(pattern, norm);
}

tc_gap_risk tc_gaps_classify(const tc_gap_risks *user, const char *name, const char **category,
                             const char **pattern, int *from_user)
{
    char low[256], norm[256];
    lower_copy(name, low, sizeof low);
    tc_gaps_normalise_name(name, norm, sizeof norm);
    const char *cat = "other (default)", *pat = NULL;
    tc_gap_risk risk = TC_RISK_MEDIUM;
    int user_hit = 0;
    for (size_t i = 0; user && i < user->n && !pat; i++)
        if (rule_matches(user->rules[i].pattern, low, norm)) {
            pat = user->rules[i].pattern;
            cat = user->rules[i].category[0] ? user->rules[i].category : "user pattern";
            risk = user->rules[i].risk;
            user_hit = 1;
        }
    for (size_t i = 0; !pat && i < sizeof builtins / sizeof builtins[0]; i++)
        if (rule_matches(builtins[i].pattern, low, norm)) {
            pat = builtins[i].pattern;
            cat = builtins[i].category;
            risk = builtins[i].risk;
        }
    if (category)
        *category = cat;
    if (pattern)
        *pattern = pat;
    if (from_user)
        *from_user = user_hit;
    return risk;
}

/* ---- matching ---- */

void tc_gaps_status_days(tc_gap_status s, double *low, double *mode, double *high)
{
    /* missing: the seed's 1-3 days per operator (section 4.4); fallback:
     * it already runs, the work is checking numerics and speed and
     * switching a backend; unknown: native (0) or missing (3), 1 to check. */
    static const double days[TC_GAP_N_STATUS][3] = {
        {0, 0, 0}, {0.25, 0.5, 1}, {1, 2, 3}, {0, 1, 3}};
    unsigned i = (unsigned)s < TC_GAP_N_STATUS ? (unsigned)s : TC_GAP_UNKNOWN;
    *low = days[i][0];
    *mode = days[i][1];
    *high = days[i][2];
}

/* The row a stage picks for dtype `dt`: the same dtype beats '*'; with an
 * unknown dtype every row of the name counts and the worst status wins,
 * since any of them may be the one the model runs. *named says whether the
 * stage had the name at all. */
static const tc_gap_support_row *pick(const tc_gaps_index *ix, tc_gap_match stage, const char *op,
                                      const char *dt, int *named, int *n_rows)
{
    const tc_gap_support_row *same = NULL, *any = NULL;
    int unknown = strcmp(dt, "unknown") == 0 || strcmp(dt, "*") == 0;
    const tc_gaps_key *k;
    size_t found = tc_gaps_index_find(ix, stage, op, &k);
    for (size_t i = 0; i < found; i++) {
        const tc_gap_support_row *r = &ix->sup->rows[k[i].row];
        const char *rdt = ix->dtype[k[i].row];
        *named = 1;
        if (unknown) {
            (*n_rows)++;
            if (!same || r->status > same->status)
                same = r;
        } else if (strcmp(rdt, dt) == 0 && (!same || r->status > same->status)) {
            same = r;
        } else if (strcmp(rdt, "*") == 0 && (!any || r->status > any->status)) {
            any = r;
        }
    }
    return same ? same : any;
}

/* A name PyTorch's table cut to max_name_column_width: "xxx...". The
 * length of xxx, or 0 when the name is not cut. */
static size_t cut_prefix_len(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, "...") == 0 ? n - 3 : 0;
}

/* 1 when support operator `row` (or its normalised form) starts with the
 * cut name's prefix `pre` (`npre`: its normalised form). */
static int prefix_matches(const char *pre, const char *npre, const char *row)
{
    char b[256];
    if (strncasecmp(row, pre, strlen(pre)) == 0)
        return 1;
    tc_gaps_normalise_name(row, b, sizeof b);
    return npre[0] && strncmp(b, npre, strlen(npre)) == 0;
}

/* Whether support row r fits a cut name: it starts with the prefix and has
 * dtype `dt` or '*' (any dtype when dt is unknown). *named when it starts
 * with the prefix, whatever its dtype. */
static int prefix_fit(const tc_gap_support_row *r, const char *rdt, const char *pre,
                      const char *npre, const char *dt, int *named)
{
    if (!prefix_matches(pre, npre, r->op))
        return 0;
    *named = 1;
    if (strcmp(dt, "unknown") == 0 || strcmp(dt, "*") == 0)
        return 1;
    return strcmp(rdt, dt) == 0 || strcmp(rdt, "*") == 0;
}

/* The prefix stage of a cut name (prefix length n): how many distinct
 * support operators fit it; *first is one of them, *second another (NULL
 * when fewer). */
static int prefix_fits(const tc_gaps_index *ix, const char *name, size_t n, const char *dt,
                       const char **first, const char **second, int *named)
{
    char pre[256], npre[256];
    int distinct = 0;
    snprintf(pre, sizeof pre, "%.*s", (int)(n < sizeof pre ? n : sizeof pre - 1), name);
    tc_gaps_normalise_name(pre, npre, sizeof npre);
    *first = *second = NULL;
    const char *last = NULL;
    /* The exact stage's keys are the names sorted: the rows of one name
     * are neighbours, so a name is counted once without a second pass. */
    const tc_gaps_key *keys = ix->keys[0]; /* the exact stage's */
    size_t *fit_rows = NULL, n_fit = 0;
    for (size_t i = 0; i < ix->n[0]; i++) {
        size_t row = keys[i].row;
        if (!prefix_fit(&ix->sup->rows[row], ix->dtype[row], pre, npre, dt, named))
            continue;
        if (last && strcmp(last, keys[i].key) == 0)
            continue;
        last = keys[i].key;
        size_t *grown = realloc(fit_rows, (n_fit + 1) * sizeof *grown);
        if (!grown)
            break;
        fit_rows = grown;
        fit_rows[n_fit++] = row;
        distinct++;
    }
    /* first and second as the file orders them, as the messages always did:
     * each name's entry is its earliest fitting row */
    size_t r1 = SIZE_MAX, r2 = SIZE_MAX;
    for (size_t i = 0; i < n_fit; i++) {
        if (fit_rows[i] < r1) {
            r2 = r1;
            r1 = fit_rows[i];
        } else if (fit_rows[i] < r2) {
            r2 = fit_rows[i];
        }
    }
    *first = r1 != SIZE_MAX ? ix->sup->rows[r1].op : NULL;
    *second = r2 != SIZE_MAX ? ix->sup->rows[r2].op : NULL;
    free(fit_rows);
    return distinct;
}

static void dtype_note(const tc_gap_entry *e, char *out, size_t outlen)
{
    if (e->n_candidates > 1)
        snprintf(out, outlen,
                 "dtype unknown: the worst of %d rows (line %d); give --dtype or a dtype column",
                 e->n_candidates, e->support->line);
    else
        out[0] = '\0';
}

static void match_entry(const tc_gaps_index *ix, tc_gap_entry *e)
{
    char dt[64], note[96];
    tc_gaps_dtype_canon(e->op->dtype, dt, sizeof dt);
    int named = 0, n_rows = 0;
    size_t cut = cut_prefix_len(e->op->name);
    e->status = TC_GAP_UNKNOWN;
    e->match = TC_MATCH_NONE;
    /* A cut name skips the normalised stage: normalising drops everything
     * after the first '.', so "aten::foo_ba..." would read as "foo_ba". */
    int last = cut ? TC_MATCH_CASE : TC_MATCH_NORMALISED;
    for (int stage = TC_MATCH_EXACT; stage <= last; stage++) {
        n_rows = 0;
        const tc_gap_support_row *r =
            pick(ix, (tc_gap_match)stage, e->op->name, dt, &named, &n_rows);
        if (r) {
            e->support = r;
            e->status = r->status;
            e->match = (tc_gap_match)stage;
            e->n_candidates = n_rows;
            dtype_note(e, e->why, sizeof e->why);
            return;
        }
    }
    if (cut) {
        const char *first, *second;
        int fits = prefix_fits(ix, e->op->name, cut, dt, &first, &second, &named);
        if (fits == 1) {
            int unused = 0;
            n_rows = 0;
            const tc_gap_support_row *r = pick(ix, TC_MATCH_EXACT, first, dt, &unused, &n_rows);
            e->support = r;
            e->status = r->status;
            e->match = TC_MATCH_PREFIX;
            e->n_candidates = n_rows;
            dtype_note(e, note, sizeof note);
            snprintf(e->why, sizeof e->why,
                     "matched by prefix: the profiler cut the name, and %.72s is the only support "
                     "operator that starts with it%s%s",
                     r->op, note[0] ? "; " : "", note);
            return;
        }
        if (fits > 1) {
            e->ambiguous = 1;
            snprintf(e->why, sizeof e->why,
                     "the profiler cut the name, and %d support operators start with it (%.56s, "
                     "%.56s%s): print the table with a wider max_name_column_width",
                     fits, first, second, fits > 2 ? ", ..." : "");
            return;
        }
    }
    snprintf(e->why, sizeof e->why, "%s",
             named ? "the support list has this operator, but not for this dtype"
                   : "not in the support list: check it and add a row");
}

/* 1 when some support row names operator `name` (exact, ignoring case or
 * normalised; any dtype). */
static int support_names(const tc_gaps_index *ix, const char *name)
{
    const tc_gaps_key *k;
    for (int stage = TC_MATCH_EXACT; stage <= TC_MATCH_NORMALISED; stage++)
        if (tc_gaps_index_find(ix, (tc_gap_match)stage, name, &k) > 0)
            return 1;
    return 0;
}

static int by_share(const void *a, const void *b)
{
    const tc_gap_entry *x = a, *y = b;
    if (x->op->share != y->op->share)
        return x->op->share < y->op->share ? 1 : -1;
    int c = strcmp(x->op->name, y->op->name);
    return c ? c : strcmp(x->op->dtype, y->op->dtype);
}

tc_err tc_gaps_build(const tc_gap_inventory *inv, const tc_gap_support *sup,
                     const tc_gap_risks *user, tc_gap_table *out)
{
    if (!inv || !sup || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (inv->n == 0)
        return TC_OK;
    tc_gaps_index ix;
    if (tc_gaps_index_build(sup, &ix) != TC_OK)
        return TC_ERR_NOMEM;
    out->rows = calloc(inv->n, sizeof *out->rows);
    if (!out->rows) {
        tc_gaps_index_free(&ix);
        return TC_ERR_NOMEM;
    }
    double ops_share = 0;
    for (size_t i = 0; i < inv->n; i++) {
        if (inv->ops[i].label && !support_names(&ix, inv->ops[i].name)) {
            out->n_labels++; /* a record_function label, not an operator */
            continue;
        }
        tc_gap_entry *e = &out->rows[out->n++];
        e->op = &inv->ops[i];
        match_entry(&ix, e);
        out->n_ambiguous += e->ambiguous != 0;
        /* A cut name is classed by the full name it was matched to. */
        const char *risk_name = e->match == TC_MATCH_PREFIX ? e->support->op : e->op->name;
        e->risk = tc_gaps_classify(user, risk_name, &e->risk_category, &e->risk_pattern,
                                   &e->risk_from_user);
        tc_gaps_status_days(e->status, &e->t_low, &e->t_mode, &e->t_high);
        out->share[e->status] += e->op->share;
        out->count[e->status]++;
        out->t_low += e->t_low;
        out->t_mode += e->t_mode;
        out->t_high += e->t_high;
        ops_share += e->op->share;
    }
    out->share_other = ops_share < 1 ? 1 - ops_share : 0;
    qsort(out->rows, out->n, sizeof *out->rows, by_share);
    tc_gaps_index_free(&ix);
    return TC_OK;
}

void tc_gaps_table_free(tc_gap_table *t)
{
    if (!t)
        return;
    free(t->rows);
    memset(t, 0, sizeof *t);
}

void tc_gaps_t_op(const tc_gap_table *t, double *low, double *mode, double *high)
{
    *low = t ? t->t_low : 0;
    *mode = t ? t->t_mode : 0;
    *high = t ? t->t_high : 0;
}

/* ---- T_op from a saved table ---- */

static tc_err day_value(const char *name, json_t *days, const char *key, double *out, char *err,
                        size_t errlen)
{
    json_t *v = json_object_get(days, key);
    if (!json_is_number(v))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: t_op_days.%s is %s (expected a number of person-days)", name, key,
                       v ? "not a number" : "missing");
    *out = json_number_value(v);
    if (!isfinite(*out) || *out < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: t_op_days.%s is %g (expected person-days >= 0)", name, key, *out);
    return TC_OK;
}

tc_err tc_gaps_read_t_op_json(const char *name, const char *text, size_t len, double *low,
                              double *mode, double *high, char *err, size_t errlen)
{
    if (!name || (!text && len) || !low || !mode || !high || !err || !errlen)
        return TC_ERR_INVALID;
    json_error_t je;
    json_t *doc = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: not JSON: %s (expected the output of 'truecost gaps --json')", name,
                       je.line > 0 ? je.line : 1, je.text);
    json_t *days = json_object_get(doc, "t_op_days");
    tc_err rc = TC_OK;
    double v[3] = {0, 0, 0};
    if (!json_is_object(days))
        rc = tc_fail(err, errlen, TC_ERR_PARSE,
                     "%s: no object \"t_op_days\" {low, mode, high} (expected the output of "
                     "'truecost gaps --json')",
                     name);
    if (rc == TC_OK)
        rc = day_value(name, days, "low", &v[0], err, errlen);
    if (rc == TC_OK)
        rc = day_value(name, days, "mode", &v[1], err, errlen);
    if (rc == TC_OK)
        rc = day_value(name, days, "high", &v[2], err, errlen);
    if (rc == TC_OK && !(v[0] <= v[1] && v[1] <= v[2]))
        rc = tc_fail(err, errlen, TC_ERR_PARSE,
                     "%s: t_op_days is not ordered: low %g, mode %g, high %g (expected low <= "
                     "mode <= high)",
                     name, v[0], v[1], v[2]);
    json_decref(doc);
    if (rc == TC_OK) {
        *low = v[0];
        *mode = v[1];
        *high = v[2];
    }
    return rc;
}
