/* The gap table's CSV layer: an RFC 4180 reader over bytes, header lookup
 * by canonical name, and the two small CSV files (support list, risk
 * patterns). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/tc_file.h"
#include "core/tc_buf.h"
#include "gaps_internal.h"

/* A record of 1024 cells is no operator list; refusing it bounds memory. */
#define MAX_FIELDS 1024

typedef struct csv_reader {
    const char *name, *s;
    size_t len, pos;
    int line, flags;
    tc_buf cell;
    char **fields;
    size_t n_fields;
    char *err;
    size_t errlen;
} csv_reader;

void tc_csv_free(tc_csv *csv)
{
    if (!csv)
        return;
    for (size_t i = 0; i < csv->n; i++) {
        for (size_t j = 0; j < csv->rows[i].n; j++)
            free(csv->rows[i].fields[j]);
        free(csv->rows[i].fields);
    }
    free(csv->rows);
    csv->rows = NULL;
    csv->n = 0;
}

static int at_line_end(const csv_reader *r)
{
    return r->pos >= r->len || r->s[r->pos] == '\n' || r->s[r->pos] == '\r';
}

/* Consumes one line end (LF, CRLF or a lone CR) if there is one. */
static void eat_line_end(csv_reader *r)
{
    if (r->pos < r->len && r->s[r->pos] == '\r')
        r->pos++;
    if (r->pos < r->len && r->s[r->pos] == '\n')
        r->pos++;
    r->line++;
}

static void skip_blanks(csv_reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t'))
        r->pos++;
}

/* A blank line, or a comment line when comments are on: skipped whole. */
static int skippable_line(csv_reader *r)
{
    size_t p = r->pos;
    while (p < r->len && (r->s[p] == ' ' || r->s[p] == '\t'))
        p++;
    int blank = p >= r->len || r->s[p] == '\n' || r->s[p] == '\r';
    int comment = (r->flags & TC_CSV_COMMENTS) && p < r->len && r->s[p] == '#';
    if (!blank && !comment)
        return 0;
    r->pos = p;
    while (!at_line_end(r))
        r->pos++;
    eat_line_end(r);
    return 1;
}

/* A quoted cell, the opening quote at r->pos. Line breaks inside are kept
 * and counted. */
static tc_err quoted_cell(csv_reader *r)
{
    int opened = r->line;
    r->pos++;
    for (;;) {
        if (r->pos >= r->len)
            return tc_fail(r->err, r->errlen, TC_ERR_PARSE,
                           "%s:%d: a quoted cell opened on this line is never closed", r->name,
                           opened);
        char c = r->s[r->pos++];
        if (c == '"') {
            if (r->pos < r->len && r->s[r->pos] == '"') {
                r->pos++;
                tc_buf_append(&r->cell, "\"", 1);
                continue;
            }
            break;
        }
        if (c == '\n' || (c == '\r' && (r->pos >= r->len || r->s[r->pos] != '\n')))
            r->line++;
        tc_buf_append(&r->cell, &c, 1);
    }
    skip_blanks(r);
    if (!at_line_end(r) && r->s[r->pos] != ',')
        return tc_fail(r->err, r->errlen, TC_ERR_PARSE,
                       "%s:%d: text after a closing quote (inside a quoted cell write a quote "
                       "as \"\")",
                       r->name, r->line);
    return TC_OK;
}

static tc_err plain_cell(csv_reader *r)
{
    size_t start = r->pos;
    while (!at_line_end(r) && r->s[r->pos] != ',') {
        if (r->s[r->pos] == '"')
            return tc_fail(r->err, r->errlen, TC_ERR_PARSE,
                           "%s:%d: a quote inside an unquoted cell (quote the whole cell and "
                           "write the quote as \"\")",
                           r->name, r->line);
        r->pos++;
    }
    size_t end = r->pos;
    while (end > start && (r->s[end - 1] == ' ' || r->s[end - 1] == '\t'))
        end--;
    tc_buf_append(&r->cell, r->s + start, end - start);
    return TC_OK;
}

static tc_err push_field(csv_reader *r)
{
    if (r->n_fields >= MAX_FIELDS)
        return tc_fail(r->err, r->errlen, TC_ERR_PARSE, "%s:%d: more than %d cells in a row",
                       r->name, r->line, MAX_FIELDS);
    char **grown = realloc(r->fields, (r->n_fields + 1) * sizeof *grown);
    if (!grown)
        return TC_ERR_NOMEM;
    r->fields = grown;
    char *copy = strdup(r->cell.data ? r->cell.data : "");
    if (!copy || tc_buf_status(&r->cell) != TC_OK) {
        free(copy);
        return TC_ERR_NOMEM;
    }
    r->fields[r->n_fields++] = copy;
    tc_buf_reset(&r->cell);
    return TC_OK;
}

static tc_err read_record(csv_reader *r)
{
    for (;;) {
        skip_blanks(r);
        tc_err rc = r->pos < r->len && r->s[r->pos] == '"' ? quoted_cell(r) : plain_cell(r);
        if (rc == TC_OK)
            rc = push_field(r);
        if (rc != TC_OK)
            return rc;
        if (at_line_end(r))
            break;
        r->pos++; /* the comma */
    }
    eat_line_end(r);
    return TC_OK;
}

static tc_err add_row(tc_csv *out, csv_reader *r, int line)
{
    tc_csv_row *grown = realloc(out->rows, (out->n + 1) * sizeof *grown);
    if (!grown)
        return TC_ERR_NOMEM;
    out->rows = grown;
    out->rows[out->n++] = (tc_csv_row){r->fields, r->n_fields, line};
    r->fields = NULL;
    r->n_fields = 0;
    return TC_OK;
}

static void drop_fields(csv_reader *r)
{
    for (size_t i = 0; i < r->n_fields; i++)
        free(r->fields[i]);
    free(r->fields);
    r->fields = NULL;
    r->n_fields = 0;
}

tc_err tc_csv_parse(const char *name, const char *text, size_t len, int flags, tc_csv *out,
                    char *err, size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (len && memchr(text, '\0', len))
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: contains a NUL byte: not a text file", name);
    csv_reader r = {.name = name,
                    .s = text,
                    .len = len,
                    .line = 1,
                    .flags = flags,
                    .err = err,
                    .errlen = errlen};
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        r.pos = 3; /* spreadsheets write a UTF-8 byte-order mark */
    tc_err rc = TC_OK;
    while (rc == TC_OK && r.pos < r.len) {
        if (skippable_line(&r))
            continue;
        int line = r.line;
        rc = read_record(&r);
        if (rc == TC_OK)
            rc = add_row(out, &r, line);
    }
    drop_fields(&r);
    tc_buf_free(&r.cell);
    if (rc == TC_ERR_NOMEM)
        tc_fail(err, errlen, rc, "%s: out of memory", name);
    if (rc != TC_OK)
        tc_csv_free(out);
    return rc;
}

void tc_csv_header_key(const char *cell, char *out, size_t outlen)
{
    if (!outlen)
        return;
    size_t n = 0;
    int gap = 0;
    for (const unsigned char *p = (const unsigned char *)cell; *p && n + 4 < outlen; p++) {
        if (*p == '%') {
            if (n)
                out[n++] = '_';
            memcpy(out + n, "pct", 3);
            n += 3;
            gap = 0;
        } else if (isalnum(*p)) {
            if (gap && n)
                out[n++] = '_';
            out[n++] = (char)tolower(*p);
            gap = 0;
        } else {
            gap = 1;
        }
    }
    out[n] = '\0';
}

int tc_csv_column(const tc_csv_row *header, const char *const *keys)
{
    char key[128];
    for (size_t i = 0; i < header->n; i++) {
        tc_csv_header_key(header->fields[i], key, sizeof key);
        for (const char *const *k = keys; *k; k++)
            if (strcmp(key, *k) == 0)
                return (int)i;
    }
    return -1;
}

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
