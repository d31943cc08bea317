/* PyTorch's profiler table (print(prof.key_averages().table())) as a
 * kernel table: columns cut at the dashed rule's column starts, the
 * kernels being the device-only rows (device time > 0, CPU time 0); the
 * operator rows around them are counted as skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels_internal.h"

#define MAX_COLS 48

typedef struct span {
    size_t start, end;
} span;

typedef struct ttable {
    const char *name, *s;
    size_t len, pos;
    int line; /* of the line last read */
    span spans[MAX_COLS];
    size_t n_spans;
} ttable;

/* The next line without its line end; 0 at the end of the text. */
static int next_line(ttable *t, const char **line, size_t *len)
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

/* A dashed rule: dashes in groups separated by spaces, at least three,
 * from the first column. */
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

static void rule_spans(ttable *t, const char *s, size_t len)
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

static void row_free(tc_csv_row *row)
{
    for (size_t i = 0; i < row->n; i++)
        free(row->fields[i]);
    free(row->fields);
    *row = (tc_csv_row){0};
}

/* The cells of a line, cut at the rule's column starts and trimmed. */
static int line_cells(const ttable *t, const char *s, size_t len, tc_csv_row *row)
{
    row->fields = calloc(t->n_spans ? t->n_spans : 1, sizeof *row->fields);
    if (!row->fields)
        return -1;
    row->line = t->line;
    for (; row->n < t->n_spans; row->n++) {
        size_t a = t->spans[row->n].start;
        size_t b = row->n + 1 < t->n_spans ? t->spans[row->n + 1].start : len;
        a = a < len ? a : len;
        b = b < len ? b : len;
        while (a < b && (s[a] == ' ' || s[a] == '\t'))
            a++;
        while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
            b--;
        if (!(row->fields[row->n] = strndup(s + a, b - a)))
            return -1;
    }
    return 0;
}

typedef struct tcols {
    int name, dev, cpu_total, self_cpu, calls;
} tcols;

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

static tc_err header(const ttable *t, const tc_csv_row *h, tcols *c, char *err, size_t errlen)
{
    static const char *const name[] = {"name", NULL};
    static const char *const cpu_total[] = {"cpu_total", NULL};
    static const char *const self_cpu[] = {"self_cpu", NULL};
    static const char *const calls[] = {"of_calls", "calls", "count", NULL};
    *c = (tcols){tc_csv_column(h, name), device_column(h), tc_csv_column(h, cpu_total),
                 tc_csv_column(h, self_cpu), tc_csv_column(h, calls)};
    if (c->name >= 0 && c->dev >= 0)
        return TC_OK;
    char cols[512];
    tc_kernels_header_list(h, cols, sizeof cols);
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "%s:%d: the profiler table has no %s column (it has: %s); profile with "
                   "ProfilerActivity.CUDA and print prof.key_averages().table()",
                   t->name, h->line, c->name < 0 ? "Name" : "Self CUDA (device time)", cols);
}

/* 1 when the row ran on the CPU: a CPU time above 0, or negative (PyTorch
 * <= 2.4 prints some for CPU-side operators). */
static int on_cpu(const tc_csv_row *row, const tcols *c)
{
    int col = c->cpu_total >= 0 ? c->cpu_total : c->self_cpu;
    int64_t ns;
    if (col < 0 || (size_t)col >= row->n || !row->fields[col][0])
        return 0;
    tc_kernels_ns_status st = tc_kernels_ns(row->fields[col], 1000, 1, &ns);
    return st != TC_KNS_OK || ns > 0;
}

static tc_err table_row(const ttable *t, const tc_csv_row *h, const tc_csv_row *row, const tcols *c,
                        tc_kernel_table *out, char *err, size_t errlen)
{
    char *kname = row->fields[c->name];
    const char *dev = row->fields[c->dev];
    if (!kname[0] && !dev[0])
        return TC_OK; /* a stack line of group_by_stack_n, a spacer */
    tc_err rc = tc_kernels_count_row(out, t->name, row->line, err, errlen);
    if (rc != TC_OK)
        return rc;
    int64_t ns;
    tc_kernels_ns_status st = tc_kernels_ns(dev, 1000, 1, &ns);
    if (st != TC_KNS_OK)
        return tc_kernels_time_error(t->name, row->line, h->fields[c->dev], kname, dev, st, NULL,
                                     err, errlen);
    if (ns == 0 || on_cpu(row, c)) {
        out->skipped++; /* an operator, or a row without device time */
        return TC_OK;
    }
    tc_kernels_clean_name(kname);
    if (!kname[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: a row without a kernel name", t->name,
                       row->line);
    uint64_t calls = 0;
    const char *cc = c->calls >= 0 ? row->fields[c->calls] : "";
    if (cc[0] && tc_kernels_count(cc, &calls) < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %.200s: '%.40s' is not a count (a whole number >= 0)", t->name,
                       row->line, h->fields[c->calls], kname, cc);
    return tc_kernels_add(out, t->name, row->line, kname, ns, calls, cc[0] != 0, err, errlen);
}

/* Reads from the header line (just read) to the table's closing rule. */
static tc_err table_body(ttable *t, const char *hs, size_t hlen, tc_kernel_table *out, char *err,
                         size_t errlen)
{
    tc_csv_row h = {0}, row = {0};
    tcols c;
    const char *s;
    size_t len;
    tc_err rc = TC_ERR_NOMEM;
    if (line_cells(t, hs, hlen, &h) < 0)
        goto out;
    rc = header(t, &h, &c, err, errlen);
    size_t after_header = t->pos;
    int line = t->line;
    if (rc == TC_OK && next_line(t, &s, &len) && !is_rule(s, len)) {
        t->pos = after_header; /* no underline: the rows start at once */
        t->line = line;
    }
    while (rc == TC_OK && next_line(t, &s, &len) && len && !is_rule(s, len)) {
        if (line_cells(t, s, len, &row) < 0)
            rc = TC_ERR_NOMEM;
        else
            rc = table_row(t, &h, &row, &c, out, err, errlen);
        row_free(&row);
    }
out:
    if (rc == TC_ERR_NOMEM)
        tc_fail(err, errlen, rc, "%s: out of memory", t->name);
    row_free(&h);
    return rc;
}

static int has_name(const char *s, size_t len)
{
    for (size_t i = 0; i + 4 <= len; i++)
        if (memcmp(s + i, "Name", 4) == 0)
            return 1;
    return 0;
}

/* Positions t after the first rule that a header with "Name" follows. */
static int find_table(ttable *t, const char **hs, size_t *hlen)
{
    const char *s;
    size_t len;
    while (next_line(t, &s, &len)) {
        if (!is_rule(s, len))
            continue;
        rule_spans(t, s, len);
        size_t pos = t->pos;
        int line = t->line;
        if (next_line(t, hs, hlen) && has_name(*hs, *hlen))
            return 1;
        t->pos = pos;
        t->line = line;
    }
    return 0;
}

int tc_kernels_torch_table(const char *name, const char *text, size_t len, tc_kernel_table *t,
                           tc_err *rc, char *err, size_t errlen)
{
    ttable tt = {.name = name, .s = text, .len = len};
    const char *hs;
    size_t hlen;
    if (!find_table(&tt, &hs, &hlen))
        return 0;
    *rc = table_body(&tt, hs, hlen, t, err, errlen);
    return 1;
}
