/* The gap table's CSV helpers (over core/tc_csv) and its two small CSV
 * files (support list, risk patterns). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/tc_file.h"
#include "gaps_internal.h"

void tc_gaps_header_list(const tc_csv_row *header, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < header->n; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "", header->fields[i]);
    }
}

const char *tc_gaps_cell(const tc_csv_row *row, int col)
{
    return col >= 0 && (size_t)col < row->n ? row->fields[col] : "";
}

int tc_gaps_time_us(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double us;
    } units[] = {{"ns", 1e-3}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}};
    char num[64];
    size_t n = strspn(s, "0123456789.eE+-");
    /* "1e3s" reads as 1e3 then s; a unit never starts with e or E. */
    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, s, n);
    num[n] = '\0';
    double v;
    if (tc_parse_plain_number(num, &v) < 0)
        return -1;
    const char *unit = s + n;
    while (*unit == ' ')
        unit++;
    if (!*unit) {
        *out = v;
        return 0;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].unit) == 0) {
            *out = v * units[i].us;
            return isfinite(*out) ? 0 : -1;
        }
    return -1;
}

tc_err tc_gaps_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    if (!path || !text || !len)
        return TC_ERR_INVALID;
    return tc_read_file(path, TC_GAPS_MAX_FILE_BYTES, "an operator table or support list", text,
                        len, err, errlen);
}

/* ---- support list ---- */

void tc_gaps_support_free(tc_gap_support *sup)
{
    if (!sup)
        return;
    for (size_t i = 0; i < sup->n; i++) {
        free(sup->rows[i].op);
        free(sup->rows[i].dtype);
        free(sup->rows[i].alternative);
        free(sup->rows[i].notes);
    }
    free(sup->rows);
    sup->rows = NULL;
    sup->n = 0;
}

static int status_of(const char *s, tc_gap_status *out)
{
    static const char *const names[] = {"native", "fallback", "missing"};
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = (tc_gap_status)i;
            return 0;
        }
    return -1;
}

/* Columns of the support list, found by header name. */
typedef struct support_cols {
    int op, dtype, status, alt, notes;
} support_cols;

static tc_err support_columns(const char *name, const tc_csv *csv, support_cols *c, char *err,
                              size_t errlen)
{
    static const char *const op[] = {"op", "operator", "name", "op_name", NULL};
    static const char *const dtype[] = {"dtype", "data_type", "type", "precision", NULL};
    static const char *const status[] = {"status", "support", NULL};
    static const char *const alt[] = {"alternative", "alternatives", "alt", "replacement", NULL};
    static const char *const notes[] = {"notes", "note", "comment", "comments", NULL};
    if (csv->n == 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: empty: expected a header op,dtype,status,alternative,notes and "
                       "one row per operator",
                       name);
    const tc_csv_row *h = &csv->rows[0];
    *c = (support_cols){tc_csv_column(h, op), tc_csv_column(h, dtype), tc_csv_column(h, status),
                        tc_csv_column(h, alt), tc_csv_column(h, notes)};
    if (c->op >= 0 && c->status >= 0)
        return TC_OK;
    char cols[512];
    tc_gaps_header_list(h, cols, sizeof cols);
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "%s:%d: no '%s' column in the header (it has: %s); expected "
                   "op,dtype,status,alternative,notes",
                   name, h->line, c->op < 0 ? "op" : "status", cols);
}

static tc_err support_row(const char *name, const tc_csv_row *row, const support_cols *c,
                          tc_gap_support_row *out, char *err, size_t errlen)
{
    const char *op = tc_gaps_cell(row, c->op), *st = tc_gaps_cell(row, c->status);
    if (!op[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: empty op (every row names an operator)",
                       name, row->line);
    if (status_of(st, &out->status) < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: status '%s' of %s is not native, fallback or missing", name,
                       row->line, st, op);
    const char *dt = tc_gaps_cell(row, c->dtype);
    out->line = row->line;
    out->op = strdup(op);
    out->dtype = strdup(dt[0] ? dt : "*"); /* no dtype: the row covers all */
    out->alternative = strdup(tc_gaps_cell(row, c->alt));
    out->notes = strdup(tc_gaps_cell(row, c->notes));
    if (!out->op || !out->dtype || !out->alternative || !out->notes)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    return TC_OK;
}

/* A pair (op, dtype) twice would make the table depend on row order. */
static tc_err support_duplicate(const char *name, const tc_gap_support *sup, char *err,
                                size_t errlen)
{
    const tc_gap_support_row *last = &sup->rows[sup->n - 1];
    char a[64], b[64];
    tc_gaps_dtype_canon(last->dtype, a, sizeof a);
    for (size_t i = 0; i + 1 < sup->n; i++) {
        tc_gaps_dtype_canon(sup->rows[i].dtype, b, sizeof b);
        if (strcmp(sup->rows[i].op, last->op) == 0 && strcmp(a, b) == 0)
            return tc_fail(err, errlen, TC_ERR_PARSE,
                           "%s:%d: %s (dtype %s) is given twice (first on line %d)", name,
                           last->line, last->op, last->dtype, sup->rows[i].line);
    }
    return TC_OK;
}

tc_err tc_gaps_support_parse(const char *name, const char *text, size_t len, tc_gap_support *out,
                             char *err, size_t errlen)
{
    if (!out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    tc_csv csv;
    tc_err rc = tc_csv_parse(name, text, len, TC_CSV_COMMENTS, &csv, err, errlen);
    if (rc != TC_OK)
        return rc;
    support_cols c;
    rc = support_columns(name, &csv, &c, err, errlen);
    if (rc == TC_OK && csv.n > 0 && !(out->rows = calloc(csv.n, sizeof *out->rows)))
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    for (size_t i = 1; rc == TC_OK && i < csv.n; i++) {
        rc = support_row(name, &csv.rows[i], &c, &out->rows[out->n++], err, errlen);
        if (rc == TC_OK)
            rc = support_duplicate(name, out, err, errlen);
    }
    if (rc == TC_OK && out->n == 0)
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s: a header but no operator rows", name);
    tc_csv_free(&csv);
    if (rc != TC_OK)
        tc_gaps_support_free(out);
    return rc;
}

/* ---- risk patterns ---- */

void tc_gaps_risks_free(tc_gap_risks *risks)
{
    if (!risks)
        return;
    for (size_t i = 0; i < risks->n; i++) {
        free(risks->rules[i].pattern);
        free(risks->rules[i].category);
    }
    free(risks->rules);
    risks->rules = NULL;
    risks->n = 0;
}

static int risk_of(const char *s, tc_gap_risk *out)
{
    static const struct {
        const char *name;
        tc_gap_risk risk;
    } names[] = {{"low", TC_RISK_LOW},
                 {"medium", TC_RISK_MEDIUM},
                 {"medium-high", TC_RISK_MEDIUM_HIGH},
                 {"medium_high", TC_RISK_MEDIUM_HIGH},
                 {"high", TC_RISK_HIGH}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].risk;
            return 0;
        }
    return -1;
}

static tc_err risk_row(const char *name, const tc_csv_row *row, const int col[3],
                       tc_gap_risk_rule *out, char *err, size_t errlen)
{
    const char *pat = tc_gaps_cell(row, col[0]), *cls = tc_gaps_cell(row, col[1]);
    if (!pat[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: empty pattern", name, row->line);
    if (risk_of(cls, &out->risk) < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: class '%s' of pattern %s is not low, medium, medium-high or high",
                       name, row->line, cls, pat);
    out->line = row->line;
    out->pattern = strdup(pat);
    out->category = strdup(tc_gaps_cell(row, col[2]));
    if (!out->pattern || !out->category)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    return TC_OK;
}

tc_err tc_gaps_risks_parse(const char *name, const char *text, size_t len, tc_gap_risks *out,
                           char *err, size_t errlen)
{
    static const char *const pattern[] = {"pattern", "glob", "op", NULL};
    static const char *const klass[] = {"class", "risk", "risk_class", NULL};
    static const char *const category[] = {"category", "label", "notes", NULL};
    if (!out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    tc_csv csv;
    tc_err rc = tc_csv_parse(name, text, len, TC_CSV_COMMENTS, &csv, err, errlen);
    if (rc != TC_OK)
        return rc;
    int col[3] = {-1, -1, -1};
    if (csv.n == 0) {
        rc = tc_fail(err, errlen, TC_ERR_PARSE,
                     "%s: empty: expected a header pattern,class and one row per pattern", name);
        goto out;
    }
    col[0] = tc_csv_column(&csv.rows[0], pattern);
    col[1] = tc_csv_column(&csv.rows[0], klass);
    col[2] = tc_csv_column(&csv.rows[0], category);
    if (col[0] < 0 || col[1] < 0) {
        char cols[512];
        tc_gaps_header_list(&csv.rows[0], cols, sizeof cols);
        rc = tc_fail(err, errlen, TC_ERR_PARSE,
                     "%s:%d: no '%s' column in the header (it has: %s); expected "
                     "pattern,class[,category]",
                     name, csv.rows[0].line, col[0] < 0 ? "pattern" : "class", cols);
        goto out;
    }
    if (!(out->rules = calloc(csv.n, sizeof *out->rules))) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
        goto out;
    }
    for (size_t i = 1; rc == TC_OK && i < csv.n; i++)
        rc = risk_row(name, &csv.rows[i], col, &out->rules[out->n++], err, errlen);
out:
    tc_csv_free(&csv);
    if (rc != TC_OK)
        tc_gaps_risks_free(out);
    return rc;
}
