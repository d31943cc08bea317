/* The profiler's text table (prof.key_averages().table()): columns found
 * from the dashed rules, names and times read into raw rows for
 * gaps_ops.c to turn into shares. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaps_internal.h"

typedef struct span {
    size_t start, end;
} span;

#define MAX_COLS 48

typedef struct text_table {
    const char *name, *s;
    size_t len, pos;
    int line; /* of the line last read */
    span spans[MAX_COLS];
    size_t n_spans;
} text_table;

/* The next line without its line end; 0 at the end of the text. */
static int next_line(text_table *t, const char **line, size_t *len)
{
    if (t->pos >= t->len)
        return 0;
    const char *start = t->s + t->pos;
    const char *nl = memchr(start, '\n', t->len - t->pos);
    size_t n = nl ? (size_t)(nl - start) : t->len - t->pos;
    t->pos += n + (nl ? 1 : 0);
    if (n && start[n - 1] == '\r')
        n--;
    *line = start;
    *len = n;
    t->line++;
    return 1;
}

/* A dashed rule: dashes in groups separated by spaces, at least three. */
static int is_rule(const char *s, size_t len)
{
    size_t dashes = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '-')
            dashes++;
        else if (s[i] != ' ' && s[i] != '\t')
            return 0;
    }
    return dashes >= 3 && s[0] == '-';
}

static void rule_spans(text_table *t, const char *s, size_t len)
{
    t->n_spans = 0;
    for (size_t i = 0; i < len && t->n_spans < MAX_COLS;) {
        while (i < len && s[i] != '-')
            i++;
        size_t start = i;
        while (i < len && s[i] == '-')
            i++;
        if (i > start)
            t->spans[t->n_spans++] = (span){start, i};
    }
}

static char *trimmed_copy(const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    return strndup(s, len);
}

/* Splits at runs of two or more spaces; the cells, or 0 on no memory. */
static size_t split_wide(const char *s, size_t len, char **cells, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= len)
            break;
        size_t start = i;
        while (i < len && !(s[i] == '\t' || (s[i] == ' ' && (i + 1 >= len || s[i + 1] == ' '))))
            i++;
        if (!(cells[n++] = trimmed_copy(s + start, i - start)))
            return 0;
    }
    return n;
}

static void free_cells(char **cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(cells[i]);
}

/* The cells of a line: split at wide gaps when that gives one cell per
 * column (robust to a hand-edited table), else cut at the rule's columns
 * (robust to a name with double spaces). Returns 0 or -1 (no memory). */
static int line_cells(const text_table *t, const char *s, size_t len, tc_csv_row *row)
{
    char *cells[MAX_COLS];
    size_t n = split_wide(s, len, cells, MAX_COLS);
    if (n != t->n_spans) {
        free_cells(cells, n);
        for (n = 0; n < t->n_spans; n++) {
            size_t a = t->spans[n].start, b = n + 1 < t->n_spans ? t->spans[n + 1].start : len;
            a = a < len ? a : len;
            b = b < len ? b : len;
            if (!(cells[n] = trimmed_copy(s + a, b > a ? b - a : 0))) {
                free_cells(cells, n);
                return -1;
            }
        }
    }
    row->fields = malloc((n ? n : 1) * sizeof *row->fields);
    if (!row->fields) {
        free_cells(cells, n);
        return -1;
    }
    memcpy(row->fields, cells, n * sizeof *cells);
    row->n = n;
    row->line = t->line;
    return 0;
}

static void row_free(tc_csv_row *row)
{
    free_cells(row->fields, row->n);
    free(row->fields);
    row->fields = NULL;
    row->n = 0;
}

/* "Self CUDA time total: 5.123ms" below the table. */
static void footer_line(const char *s, size_t len, tc_gaps_raw_rows *r)
{
    char buf[160];
    if (len < 6 || len >= sizeof buf || strncmp(s, "Self ", 5) != 0)
        return;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *mark = strstr(buf, " time total:");
    double v;
    if (!mark)
        return;
    *mark = '\0';
    char *value = mark + strlen(" time total:");
    while (*value == ' ')
        value++;
    if (tc_gaps_time_us(value, &v) < 0)
        return;
    if (strcmp(buf + 5, "CPU") == 0)
        r->footer_cpu = v;
    else
        r->footer_dev = v;
}

/* The self device column: "Self CUDA", "Self XPU", "Self device"... any
 * "Self X" that is not CPU, a percentage or memory. */
static int device_column(const tc_csv_row *h)
{
    char key[128];
    for (size_t i = 0; i < h->n; i++) {
        tc_csv_header_key(h->fields[i], key, sizeof key);
        size_t n = strlen(key);
        if (strncmp(key, "self_", 5) == 0 && strcmp(key, "self_cpu") != 0 &&
            !(n > 4 && strcmp(key + n - 4, "_pct") == 0) && !strstr(key, "mem"))
            return (int)i;
    }
    return -1;
}

static void table_columns(const tc_csv_row *h, tc_gaps_cols *c)
{
    static const char *const name[] = {"name", NULL};
    static const char *const cpu[] = {"self_cpu", NULL};
    static const char *const cpu_total[] = {"cpu_total", NULL};
    static const char *const calls[] = {"of_calls", "calls", "count", NULL};
    static const char *const dtype[] = {"dtype", NULL};
    *c = (tc_gaps_cols){tc_csv_column(h, name),  tc_csv_column(h, cpu),
                        device_column(h),        tc_csv_column(h, cpu_total),
                        tc_csv_column(h, calls), tc_csv_column(h, dtype)};
}

static tc_err table_header(text_table *t, const tc_csv_row *h, tc_gaps_cols *c, tc_gaps_raw_rows *r,
                           char *err, size_t errlen)
{
    table_columns(h, c);
    if (c->name < 0 || (c->cpu < 0 && c->dev < 0)) {
        char cols[512];
        tc_gaps_header_list(h, cols, sizeof cols);
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: the profiler table has no %s column (it has: %s); print it with "
                       "prof.key_averages().table()",
                       t->name, h->line, c->name < 0 ? "Name" : "Self CPU or Self CUDA", cols);
    }
    r->has_cpu = c->cpu >= 0;
    r->has_dev = c->dev >= 0;
    r->has_cpu_total = c->cpu_total >= 0;
    return TC_OK;
}

/* A line under a row that holds only stack text (group_by_stack_n's
 * "Source Location" lines) or nothing (its spacer): no name, no time, no
 * count. */
static int continuation(const tc_csv_row *row, const tc_gaps_cols *c)
{
    return !tc_gaps_cell(row, c->name)[0] && !tc_gaps_cell(row, c->cpu)[0] &&
           !tc_gaps_cell(row, c->dev)[0] && !tc_gaps_cell(row, c->cpu_total)[0] &&
           !tc_gaps_cell(row, c->calls)[0];
}

/* Reads from the header line (just read) to the end of the text. */
static tc_err table_body(text_table *t, const char *hs, size_t hlen, const char *dtype,
                         tc_gaps_raw_rows *r, char *err, size_t errlen)
{
    tc_csv_row h = {0}, row = {0};
    tc_gaps_cols c;
    const char *s;
    size_t len;
    int in_rows = 1;
    tc_err rc = TC_ERR_NOMEM;
    if (line_cells(t, hs, hlen, &h) < 0)
        goto out;
    rc = table_header(t, &h, &c, r, err, errlen);
    size_t after_header = t->pos;
    if (rc == TC_OK && next_line(t, &s, &len) && !is_rule(s, len)) {
        t->pos = after_header; /* no underline: data starts at once */
        t->line--;
    }
    while (rc == TC_OK && next_line(t, &s, &len)) {
        if (is_rule(s, len) || len == 0)
            in_rows = 0;
        else if (!in_rows)
            footer_line(s, len, r);
        else if (line_cells(t, s, len, &row) < 0)
            rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", t->name);
        else {
            if (!continuation(&row, &c))
                rc = tc_gaps_profiler_row(t->name, &h, &row, &c, dtype, r, err, errlen);
            row_free(&row);
        }
    }
out:
    if (rc == TC_ERR_NOMEM && !err[0])
        tc_fail(err, errlen, rc, "%s: out of memory", t->name);
    row_free(&h);
    return rc;
}

static int has_name_cell(const char *s, size_t len)
{
    for (size_t i = 0; i + 4 <= len; i++)
        if (memcmp(s + i, "Name", 4) == 0)
            return 1;
    return 0;
}

/* Positions t after the first rule that a "Name" header follows; 1 when
 * the text is a profiler table. */
static int find_table(text_table *t, const char **hs, size_t *hlen)
{
    const char *s;
    size_t len;
    while (next_line(t, &s, &len)) {
        if (!is_rule(s, len))
            continue;
        rule_spans(t, s, len);
        size_t pos = t->pos;
        int line = t->line;
        if (next_line(t, hs, hlen) && has_name_cell(*hs, *hlen))
            return 1;
        t->pos = pos;
        t->line = line;
    }
    return 0;
}

int tc_gaps_read_table(const char *name, const char *text, size_t len, const char *dtype,
                       tc_gaps_raw_rows *r, tc_err *rc, char *err, size_t errlen)
{
    text_table t = {.name = name, .s = text, .len = len};
    const char *hs;
    size_t hlen;
    if (!find_table(&t, &hs, &hlen))
        return 0;
    *rc = table_body(&t, hs, hlen, dtype, r, err, errlen);
    return 1;
}
