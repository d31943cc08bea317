/* The kernel tables' CSV formats: the header found by its column names
 * (lines above it, such as nsys's "Processing [...]" preamble, are
 * skipped), the format told from the columns it has, then the rows read
 * through core/tc_csv. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels_internal.h"

/* The columns of one format, -1 when absent. */
typedef struct kcols {
    int name, time, calls, start, end, cpu;
    int64_t scale; /* ns per unit of the time column */
    char unit[8];  /* its unit, for messages */
} kcols;

/* The first cell whose canonical key is one of keys (NULL-ended). */
static int col(const tc_csv_row *h, const char *const *keys)
{
    return tc_csv_column(h, keys);
}

/* nsys's "Total Time (ns)": the column and its unit (nsys stats
 * --timeunit: ns, us, ms, s; no unit means ns). */
static int nsys_time(const tc_csv_row *h, kcols *c)
{
    static const struct {
        const char *key;
        int64_t scale;
        const char *unit;
    } spellings[] = {{"total_time_ns", 1, "ns"},         {"total_time", 1, "ns"},
                     {"total_time_nsec", 1, "ns"},       {"total_time_us", 1000, "us"},
                     {"total_time_usec", 1000, "us"},    {"total_time_ms", 1000000, "ms"},
                     {"total_time_msec", 1000000, "ms"}, {"total_time_s", 1000000000, "s"},
                     {"total_time_sec", 1000000000, "s"}};
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        const char *keys[] = {spellings[i].key, NULL};
        int k = col(h, keys);
        if (k >= 0) {
            c->time = k;
            c->scale = spellings[i].scale;
            snprintf(c->unit, sizeof c->unit, "%s", spellings[i].unit);
            return 1;
        }
    }
    return 0;
}

static const char *const TORCH_DEV[] = {"self_device_time_total",
                                        "self_cuda_time_total",
                                        "self_xpu_time_total",
                                        "self_privateuse1_time_total",
                                        "self_device",
                                        "self_cuda",
                                        "self_xpu",
                                        "self_gpu",
                                        "self_device_time_total_us",
                                        "self_cuda_time_total_us",
                                        NULL};

/* The format of header h and its columns; 0 when it is none of ours. */
static int match_header(const tc_csv_row *h, tc_kernels_format *fmt, kcols *c)
{
    static const char *const name[] = {"name", NULL};
    static const char *const kname[] = {"kernel_name", NULL};
    static const char *const start[] = {"start_timestamp", NULL};
    static const char *const end[] = {"end_timestamp", NULL};
    static const char *const guid[] = {"guid", NULL};
    static const char *const total[] = {"totaldurationns", NULL};
    static const char *const v3[] = {"minns", "maxns", NULL};
    static const char *const calls[] = {"instances", "calls",    "num_calls",
                                        "count",     "of_calls", NULL};
    static const char *const tname[] = {"name", "key", NULL};
    static const char *const cpu[] = {"cpu_time_total", "cpu_total", "self_cpu_time_total",
                                      "self_cpu", NULL};
    *c = (kcols){-1, -1, col(h, calls), col(h, start), col(h, end), -1, 1, "ns"};
    if ((c->name = col(h, kname)) >= 0 && c->start >= 0 && c->end >= 0) {
        *fmt = col(h, guid) >= 0 ? TC_KFMT_ROCPD_TRACE : TC_KFMT_ROCPROF_TRACE;
        return 1;
    }
    if ((c->name = col(h, name)) >= 0 && (c->time = col(h, total)) >= 0) {
        *fmt = col(h, v3) >= 0 ? TC_KFMT_ROCPROF_STATS : TC_KFMT_ROCPROF_V1;
        return 1;
    }
    if (c->name >= 0 && nsys_time(h, c)) {
        *fmt = TC_KFMT_NSYS;
        return 1;
    }
    if ((c->name = col(h, tname)) >= 0 && (c->time = col(h, TORCH_DEV)) >= 0) {
        c->cpu = col(h, cpu);
        c->scale = 1000; /* PyTorch's unit: microseconds */
        snprintf(c->unit, sizeof c->unit, "us");
        *fmt = TC_KFMT_TORCH_CSV;
        return 1;
    }
    return 0;
}

/* ---- finding the header ---- */

/* One line of text parsed as a CSV record into *row (reader r owns it);
 * 0 when it is not one (a stray quote in a preamble line). */
static int line_record(const char *s, size_t n, tc_csv_reader *r, const tc_csv_row **row)
{
    char err[8];
    tc_csv_reader_free(r);
    tc_csv_reader_init(r, "", s, n, TC_CSV_LINES);
    return tc_csv_next(r, row, err, sizeof err) == TC_OK && *row && (*row)->n >= 2;
}

typedef struct header_find {
    size_t offset; /* of the header line */
    int line;
    tc_kernels_format fmt;
    kcols c;
    int near_line; /* the first line with a name or time column but not both */
    int near_name; /* it has the name */
    char near_cols[512];
    int nsys_text; /* nsys's text table */
    int skipped;   /* nsys's "SKIPPED: ... does not contain CUDA kernel data" */
} header_find;

/* A name or time column alone: the header the user meant, for the message. */
static void note_near(const tc_csv_row *h, int line, header_find *f)
{
    static const char *const names[] = {"name", "kernel_name", "key", "kernel", NULL};
    static const char *const times[] = {"total_time_ns",
                                        "total_time",
                                        "totaldurationns",
                                        "start_timestamp",
                                        "end_timestamp",
                                        "duration",
                                        "self_cuda_time_total",
                                        "self_device_time_total",
                                        NULL};
    int has_name = col(h, names) >= 0, has_time = col(h, times) >= 0;
    if (f->near_line || (!has_name && !has_time))
        return;
    f->near_line = line;
    f->near_name = has_name;
    tc_kernels_header_list(h, f->near_cols, sizeof f->near_cols);
}

/* Text lines that say what the file is when no header is found. */
static void note_text(const char *s, size_t n, header_find *f)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    if (n >= 8 && memcmp(s, "SKIPPED:", 8) == 0)
        f->skipped = 1;
    if (n >= 8 && memcmp(s, "Time (%)", 8) == 0 && !memchr(s, ',', n))
        f->nsys_text = 1;
}

/* The header of a CSV format is on one of the first lines: nsys prints a
 * few before it; a file without one is not read to its end for it. */
#define HEADER_LINES 1000

/* Scans the lines for the first header of a known format. 1 when found. */
static int find_header(const char *text, size_t len, header_find *f)
{
    tc_csv_reader r = {0};
    const tc_csv_row *row;
    size_t pos = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    int found = 0;
    for (int line = 1; pos < len && !found && line <= HEADER_LINES; line++) {
        const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        if (memchr(s, ',', n) && line_record(s, n, &r, &row)) {
            if (match_header(row, &f->fmt, &f->c)) {
                f->offset = pos;
                f->line = line;
                found = 1;
            } else {
                note_near(row, line, f);
            }
        } else {
            note_text(s, n, f);
        }
        pos += n + (nl ? 1 : 0);
    }
    tc_csv_reader_free(&r);
    return found;
}

static tc_err no_header(const char *name, const header_find *f, char *err, size_t errlen)
{
    if (f->skipped)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: nsys found no CUDA kernel data in the report (its SKIPPED line): "
                       "profile with nsys profile --trace=cuda",
                       name);
    if (f->nsys_text)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: this is nsys's text table, whose long names are cut: write CSV with "
                       "nsys stats --report cuda_gpu_kern_sum --format csv",
                       name);
    if (f->near_line)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: the header has no %s column (it has: %s); expected nsys's Name and "
                       "Total Time (ns), rocprof's Name and TotalDurationNs, Kernel_Name with "
                       "Start_Timestamp and End_Timestamp, or PyTorch's name and "
                       "self_cuda_time_total",
                       name, f->near_line, f->near_name ? "time" : "kernel name", f->near_cols);
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "%s: no header with a kernel name and a time column: expected nsys stats "
                   "--report cuda_gpu_kern_sum --format csv, rocprofv3 kernel_stats.csv or "
                   "kernel_trace.csv, rocprof results.stats.csv, or a PyTorch profiler table",
                   name);
}

/* ---- the rows ---- */

typedef struct reading {
    const char *name;
    const tc_csv_row *h;
    tc_kernels_format fmt;
    kcols c;
    tc_kernel_table *t;
} reading;

/* The time of a summary row (nsys, rocprof stats, PyTorch CSV). */
static tc_err row_time(const reading *rd, const tc_csv_row *row, const char *kname, int64_t *ns,
                       char *err, size_t errlen)
{
    const char *cell = row->fields[rd->c.time];
    tc_kernels_ns_status st = tc_kernels_ns(cell, rd->c.scale, 0, ns);
    if (st == TC_KNS_OK)
        return TC_OK;
    return tc_kernels_time_error(rd->name, row->line, rd->h->fields[rd->c.time], kname, cell, st,
                                 rd->c.unit, err, errlen);
}

/* A dispatch's duration: End_Timestamp - Start_Timestamp, in ns. */
static tc_err trace_time(const reading *rd, const tc_csv_row *row, const char *kname, int64_t *ns,
                         char *err, size_t errlen)
{
    int64_t t[2];
    int cols[2] = {rd->c.start, rd->c.end};
    for (int i = 0; i < 2; i++) {
        const char *cell = row->fields[cols[i]];
        tc_kernels_ns_status st = tc_kernels_ns(cell, 1, 0, &t[i]);
        if (st != TC_KNS_OK)
            return tc_kernels_time_error(rd->name, row->line, rd->h->fields[cols[i]], kname, cell,
                                         st, "ns", err, errlen);
    }
    if (t[1] < t[0])
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %.200s ends before it starts (End_Timestamp %lld < "
                       "Start_Timestamp %lld): a negative time",
                       rd->name, row->line, kname, (long long)t[1], (long long)t[0]);
    *ns = t[1] - t[0];
    return TC_OK;
}

/* PyTorch's CSV: a kernel row has no CPU time (a negative CPU time, a
 * PyTorch <= 2.4 bug, is CPU-side). 1 when the row is a kernel. */
static int torch_kernel_row(const reading *rd, const tc_csv_row *row)
{
    int64_t cpu;
    if (rd->c.cpu < 0)
        return 1;
    const char *cell = row->fields[rd->c.cpu];
    return tc_kernels_ns(cell, 1000, 0, &cpu) == TC_KNS_OK && cpu == 0;
}

static tc_err row_calls(const reading *rd, const tc_csv_row *row, const char *kname,
                        uint64_t *calls, int *has, char *err, size_t errlen)
{
    *calls = 0;
    *has = 0;
    if (rd->fmt == TC_KFMT_ROCPROF_TRACE || rd->fmt == TC_KFMT_ROCPD_TRACE) {
        *calls = *has = 1; /* one row, one dispatch */
        return TC_OK;
    }
    const char *cell =
        rd->c.calls >= 0 && (size_t)rd->c.calls < row->n ? row->fields[rd->c.calls] : "";
    if (!cell[0])
        return TC_OK;
    if (tc_kernels_count(cell, calls) < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %.200s: '%.40s' is not a count (a whole number >= 0)",
                       rd->name, row->line, rd->h->fields[rd->c.calls], kname, cell);
    *has = 1;
    return TC_OK;
}

/* The last column a row must have. */
static int needed_cells(const kcols *c)
{
    int m = c->name;
    int more[] = {c->time, c->start, c->end, c->cpu};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        m = more[i] > m ? more[i] : m;
    return m + 1;
}

static tc_err data_row(const reading *rd, const tc_csv_row *row, char *err, size_t errlen)
{
    if (row->n < (size_t)needed_cells(&rd->c))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %zu cells, but the header (line %d) has %zu: a row cut short?",
                       rd->name, row->line, row->n, rd->h->line, rd->h->n);
    char *kname = row->fields[rd->c.name];
    tc_kernels_clean_name(kname);
    if (!kname[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: a row without a kernel name", rd->name,
                       row->line);
    if (rd->fmt == TC_KFMT_TORCH_CSV && !torch_kernel_row(rd, row)) {
        rd->t->skipped++;
        return TC_OK;
    }
    int64_t ns;
    uint64_t calls;
    int has;
    tc_err rc = rd->fmt == TC_KFMT_ROCPROF_TRACE || rd->fmt == TC_KFMT_ROCPD_TRACE
                    ? trace_time(rd, row, kname, &ns, err, errlen)
                    : row_time(rd, row, kname, &ns, err, errlen);
    if (rc == TC_OK)
        rc = row_calls(rd, row, kname, &calls, &has, err, errlen);
    if (rc == TC_OK && rd->fmt == TC_KFMT_TORCH_CSV && ns == 0) {
        rd->t->skipped++; /* neither CPU nor device time: an annotation */
        return TC_OK;
    }
    if (rc == TC_OK)
        rc = tc_kernels_add(rd->t, rd->name, row->line, kname, ns, calls, has, err, errlen);
    return rc;
}

/* nsys prints its next report's "Processing [...]" line after a table: a
 * one-cell row that is not a number ends the kernel table. */
static int nsys_end(const reading *rd, const tc_csv_row *row)
{
    return rd->fmt == TC_KFMT_NSYS && row->n == 1 && !isdigit((unsigned char)row->fields[0][0]);
}

/* The reader's wording of a cell over TC_KERNELS_MAX_NAME. */
static tc_err csv_error(const char *name, const tc_csv_reader *r, tc_err rc, char *err,
                        size_t errlen)
{
    if (rc == TC_ERR_PARSE && r->problem == TC_CSV_CELL_TOO_LONG)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: a cell longer than %u bytes: no kernel name is that long", name,
                       r->problem_line, TC_KERNELS_MAX_NAME);
    if (rc == TC_ERR_PARSE && r->problem == TC_CSV_UNCLOSED_QUOTE)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: a quoted cell opened on this line is never closed (close it; "
                       "inside a quoted cell write a quote as \"\")",
                       name, r->problem_line);
    return rc;
}

static void free_row(tc_csv_row *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->fields[i]);
    free(h->fields);
    *h = (tc_csv_row){0};
}

static tc_err copy_row(const char *name, const tc_csv_row *row, tc_csv_row *h, char *err,
                       size_t errlen)
{
    h->line = row->line;
    if (!(h->fields = calloc(row->n ? row->n : 1, sizeof *h->fields)))
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    for (; h->n < row->n; h->n++)
        if (!(h->fields[h->n] = strdup(row->fields[h->n])))
            return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    return TC_OK;
}

static tc_err read_rows(const char *name, const char *text, size_t len, const header_find *f,
                        tc_kernel_table *t, char *err, size_t errlen)
{
    tc_csv_reader r;
    /* The reader starts at the header line, its line count from there; one
     * record per line (LF or CRLF), as the header was found, so that a
     * lone CR is a byte of its cell in both. */
    tc_csv_reader_init(&r, name, text + f->offset, len - f->offset, TC_CSV_LINES);
    r.line = f->line;
    r.max_cell_len = TC_KERNELS_MAX_NAME;
    const tc_csv_row *row;
    tc_csv_row h = {0};
    tc_err rc = tc_csv_next(&r, &row, err, errlen);
    if (rc == TC_OK && row) /* the header, kept while the rows are read */
        rc = copy_row(name, row, &h, err, errlen);
    reading rd = {name, &h, f->fmt, f->c, t};
    /* The columns of the header as read here, never the finder's alone. */
    if (rc == TC_OK && (!match_header(&h, &rd.fmt, &rd.c) || rd.fmt != f->fmt))
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: the header does not read as CSV", name,
                     f->line);
    while (rc == TC_OK && (rc = tc_csv_next(&r, &row, err, errlen)) == TC_OK && row &&
           !nsys_end(&rd, row)) {
        rc = tc_kernels_count_row(t, name, row->line, err, errlen);
        if (rc == TC_OK)
            rc = data_row(&rd, row, err, errlen);
    }
    rc = csv_error(name, &r, rc, err, errlen);
    tc_csv_reader_free(&r);
    free_row(&h);
    return rc;
}

tc_err tc_kernels_parse(const char *name, const char *text, size_t len, tc_kernel_table *out,
                        char *err, size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    err[0] = '\0';
    if (len && memchr(text, '\0', len))
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: contains a NUL byte: not a text file", name);
    size_t blank = 0;
    while (blank < len && isspace((unsigned char)text[blank]))
        blank++;
    if (blank == len)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: empty: expected a kernel table (nsys stats --format csv, rocprof "
                       "kernel_stats.csv or kernel_trace.csv, a PyTorch profiler table)",
                       name);
    header_find f = {0};
    tc_err rc;
    if (find_header(text, len, &f)) {
        out->format = f.fmt;
        rc = read_rows(name, text, len, &f, out, err, errlen);
    } else if (tc_kernels_torch_table(name, text, len, out, &rc, err, errlen)) {
        out->format = TC_KFMT_TORCH_TABLE;
    } else {
        rc = no_header(name, &f, err, errlen);
    }
    if (rc == TC_OK)
        rc = tc_kernels_finish(name, out, err, errlen);
    if (rc != TC_OK)
        tc_kernels_table_free(out);
    return rc;
}
