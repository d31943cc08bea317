/* Operator inventories: PyTorch's profiler table (key_averages().table()),
 * a CSV export of key_averages, and a plain op,dtype,count|share CSV.
 *
 * Shares come from self times, because self time is exclusive: summing it
 * over rows never counts a parent and its children twice. Two kinds of
 * profiler row are not operators and are left out (counted in n_skipped):
 *   - device-only rows (CPU time 0, device time > 0): the kernels, memcpys
 *     and GPU-side annotations. The profiler already adds a kernel's time to
 *     the self device time of the operator that launched it, so counting the
 *     kernel row too would count that time twice;
 *   - rows named like runtime calls or annotations (tc_gaps_not_an_operator).
 * A third kind is only marked (tc_gap_op.label), because the support list
 * may name it: record_function labels such as "model_inference", names
 * without a "::" namespace that have no self device time in a table that
 * has device time. tc_gaps_build leaves them out unless the list names
 * them.
 *
 * PyTorch <= 2.4 prints negative self CPU times (pytorch/pytorch#128479):
 * a CPU time column accepts a leading '-' and reads it as 0 (counted in
 * n_negative_cpu); a negative device time stays an error.
 * The shares divide by the table's "Self <device|CPU> time total" line when
 * it has one (right even when the table was cut to its top rows), else by
 * the sum over the rows that are not device-only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "gaps_internal.h"
#include "core/tc_grow.h"

void tc_gaps_raw_free(tc_gaps_raw_rows *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->rows[i].name);
        free(r->rows[i].dtype);
    }
    free(r->rows);
    memset(r, 0, sizeof *r);
}

tc_gaps_raw_row *tc_gaps_raw_add(tc_gaps_raw_rows *r)
{
    tc_gaps_raw_row *grown = realloc(r->rows, (r->n + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->rows = grown;
    memset(&grown[r->n], 0, sizeof grown[0]);
    return &grown[r->n++];
}

void tc_gaps_inventory_free(tc_gap_inventory *inv)
{
    if (!inv)
        return;
    for (size_t i = 0; i < inv->n; i++) {
        free(inv->ops[i].name);
        free(inv->ops[i].dtype);
    }
    free(inv->ops);
    free(inv->slots);
    memset(inv, 0, sizeof *inv);
}

/* FNV-1a of name, a separator and the canonical dtype. */
static size_t pair_hash(const char *name, const char *canon)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (const unsigned char *p = (const unsigned char *)canon; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)h;
}

/* The slot of (name, canon): the one holding it, or the free one where it
 * goes. The table is never full (grown at half). */
static size_t *slot_of(const tc_gap_inventory *inv, const char *name, const char *canon)
{
    char b[64];
    size_t mask = inv->n_slots - 1;
    for (size_t i = pair_hash(name, canon) & mask;; i = (i + 1) & mask) {
        size_t *s = &inv->slots[i];
        if (*s == 0)
            return s;
        const tc_gap_op *op = &inv->ops[*s - 1];
        tc_gaps_dtype_canon(op->dtype, b, sizeof b);
        if (strcmp(op->name, name) == 0 && strcmp(canon, b) == 0)
            return s;
    }
}

/* Keeps the index at most half full: rows are summed by (name, dtype)
 * through it, so an inventory of 200k rows is read in linear time. */
static tc_err grow_index(tc_gap_inventory *inv)
{
    if (inv->n_slots && (inv->n + 1) * 2 <= inv->n_slots)
        return TC_OK;
    size_t n = inv->n_slots ? inv->n_slots * 2 : 64;
    size_t *old = inv->slots, old_n = inv->n_slots;
    inv->slots = calloc(n, sizeof *inv->slots);
    if (!inv->slots) {
        inv->slots = old;
        return TC_ERR_NOMEM;
    }
    inv->n_slots = n;
    char b[64];
    for (size_t i = 0; i < old_n; i++)
        if (old[i]) {
            const tc_gap_op *op = &inv->ops[old[i] - 1];
            tc_gaps_dtype_canon(op->dtype, b, sizeof b);
            *slot_of(inv, op->name, b) = old[i];
        }
    free(old);
    return TC_OK;
}

tc_err tc_gaps_inventory_add(tc_gap_inventory *inv, const char *name, const char *dtype,
                             double time_us, double share, double calls, int has_calls, int line)
{
    char a[64];
    tc_gaps_dtype_canon(dtype, a, sizeof a);
    if (grow_index(inv) != TC_OK)
        return TC_ERR_NOMEM;
    size_t *slot = slot_of(inv, name, a);
    if (*slot) {
        tc_gap_op *op = &inv->ops[*slot - 1];
        op->time_us += time_us;
        op->share += share;
        op->calls += calls;
        op->has_calls = op->has_calls || has_calls;
        return TC_OK;
    }
    if (tc_grow(&inv->ops, &inv->cap, inv->n, sizeof *inv->ops, 64) < 0)
        return TC_ERR_NOMEM;
    tc_gap_op *op = &inv->ops[inv->n];
    *op = (tc_gap_op){strdup(name), strdup(dtype), share, time_us, calls, has_calls, line, 0};
    if (!op->name || !op->dtype) {
        free(op->name);
        free(op->dtype);
        return TC_ERR_NOMEM;
    }
    *slot = ++inv->n;
    return TC_OK;
}

int tc_gaps_not_an_operator(const char *name)
{
    static const char *const prefixes[] = {"ProfilerStep#",     "## ",
                                           "Optimizer.",        "autograd::engine::",
                                           "torch::autograd::", "[memory]",
                                           "Memcpy ",           "Memset ",
                                           "Activity Buffer",   "Lazy Function Loading",
                                           "Unrecognized",      "Command Buffer Full",
                                           "Iteration Start",   "Buffer Flush"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    /* Runtime API calls: cudaLaunchKernel, cuLaunchKernel, hipMemcpyAsync. */
    static const char *const apis[] = {"cuda", "hip", "cu", "hsa"};
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++) {
        size_t n = strlen(apis[i]);
        if (strncmp(name, apis[i], n) == 0 && name[n] >= 'A' && name[n] <= 'Z')
            return 1;
    }
    /* Autograd graph nodes ("MmBackward0"): their work is the aten ops inside. */
    const char *b = strstr(name, "Backward");
    if (b && !strstr(name, "::")) {
        b += strlen("Backward");
        while (*b >= '0' && *b <= '9')
            b++;
        return *b == '\0';
    }
    return 0;
}

/* A row is device-only when the file has CPU times, the row has none and
 * it has device time. */
static int device_only(const tc_gaps_raw_rows *r, const tc_gaps_raw_row *row)
{
    if ((!r->has_cpu && !r->has_cpu_total) || row->negative_cpu)
        return 0;
    double cpu = r->has_cpu_total ? row->cpu_total : row->cpu;
    return cpu == 0 && row->dev > 0;
}

tc_err tc_gaps_finish_profiler(const char *name, tc_gaps_raw_rows *r, tc_gap_inventory *out,
                               char *err, size_t errlen)
{
    double sum_dev = 0, sum_cpu = 0;
    for (size_t i = 0; i < r->n; i++)
        if (!device_only(r, &r->rows[i])) {
            sum_dev += r->rows[i].dev;
            sum_cpu += r->rows[i].cpu;
        }
    if (!isfinite(sum_dev) || !isfinite(sum_cpu))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: the times add up to more than a double holds", name);
    int dev = r->has_dev && sum_dev > 0;
    if (!dev && !(r->has_cpu && sum_cpu > 0))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: no operator has any self time (every Self CPU/device value is 0)",
                       name);
    out->source = dev ? TC_SHARE_DEVICE_TIME : TC_SHARE_CPU_TIME;
    double sum = dev ? sum_dev : sum_cpu, footer = dev ? r->footer_dev : r->footer_cpu;
    out->total_from_footer = footer >= sum;
    out->total_us = footer >= sum ? footer : sum;
    out->n_negative_cpu = r->n_negative_cpu;
    for (size_t i = 0; i < r->n; i++) {
        tc_gaps_raw_row *row = &r->rows[i];
        if (device_only(r, row) || tc_gaps_not_an_operator(row->name)) {
            out->n_skipped++;
            continue;
        }
        double t = dev ? row->dev : row->cpu;
        if (tc_gaps_inventory_add(out, row->name, row->dtype, t, t / out->total_us, row->calls,
                                  row->has_calls, row->line) != TC_OK)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    }
    if (out->n == 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: no operator rows (only kernels, runtime calls or annotations)", name);
    /* record_function labels: on the CPU only, while the table has device
     * time; operators carry a namespace ("aten::", "_C::", "vllm::"). */
    for (size_t i = 0; dev && i < out->n; i++)
        out->ops[i].label = !strstr(out->ops[i].name, "::") && out->ops[i].time_us == 0;
    return TC_OK;
}

/* ---- profiler rows (table and CSV export) ---- */

/* The table's columns, by header name. */

/* A time cell of `row` into *out (0 when the column is absent). A CPU
 * column (`neg` not NULL) takes a negative time as 0 and counts it in
 * *neg. */
static tc_err time_cell(const char *name, const tc_csv_row *h, const tc_csv_row *row, int col,
                        const char *op, double *out, size_t *neg, char *err, size_t errlen)
{
    *out = 0;
    if (col < 0)
        return TC_OK;
    const char *cell = tc_gaps_cell(row, col);
    if (neg && cell[0] == '-' && tc_gaps_time_us(cell + 1, out) == 0) {
        *neg += *out > 0;
        *out = 0;
        return TC_OK;
    }
    if (tc_gaps_time_us(cell, out) == 0)
        return TC_OK;
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "%s:%d: %s of %s: '%s' is not a time (expected e.g. 1.563ms, 250.000us, "
                   "or a number of microseconds)",
                   name, row->line, h->fields[col], op, cell);
}

static tc_err calls_cell(const char *name, const tc_csv_row *h, const tc_csv_row *row, int col,
                         tc_gaps_raw_row *out, char *err, size_t errlen)
{
    const char *cell = tc_gaps_cell(row, col);
    if (col < 0 || !cell[0])
        return TC_OK;
    if (tc_parse_plain_number(cell, &out->calls) < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %s: '%s' is not a count (expected a number >= 0)", name,
                       row->line, h->fields[col], out->name, cell);
    out->has_calls = 1;
    return TC_OK;
}

/* One data row of either profiler format into r. */
tc_err tc_gaps_profiler_row(const char *name, const tc_csv_row *h, const tc_csv_row *row,
                            const tc_gaps_cols *c, const char *dtype, tc_gaps_raw_rows *r,
                            char *err, size_t errlen)
{
    const char *op = tc_gaps_cell(row, c->name), *dt = tc_gaps_cell(row, c->dtype);
    if (!op[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: a row without an operator name", name,
                       row->line);
    tc_gaps_raw_row *out = tc_gaps_raw_add(r);
    if (!out || !(out->name = strdup(op)) || !(out->dtype = strdup(dt[0] ? dt : dtype)))
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    out->line = row->line;
    size_t neg = 0;
    tc_err rc = time_cell(name, h, row, c->cpu, op, &out->cpu, &neg, err, errlen);
    if (rc == TC_OK)
        rc = time_cell(name, h, row, c->dev, op, &out->dev, NULL, err, errlen);
    if (rc == TC_OK)
        rc = time_cell(name, h, row, c->cpu_total, op, &out->cpu_total, &neg, err, errlen);
    if (rc == TC_OK)
        rc = calls_cell(name, h, row, c->calls, out, err, errlen);
    out->negative_cpu = neg > 0;
    r->n_negative_cpu += neg;
    return rc;
}

/* ---- CSV inventories ---- */

static tc_err export_csv(const char *name, const tc_csv *csv, const char *dtype,
                         tc_gap_inventory *out, char *err, size_t errlen)
{
    static const char *const op[] = {"name",          "key",   "op",         "operator", "op_name",
                                     "operator_name", "event", "event_name", NULL};
    static const char *const dev[] = {"self_device_time_total",
                                      "self_cuda_time_total",
                                      "self_xpu_time_total",
                                      "self_privateuse1_time_total",
                                      "self_device_time_total_us",
                                      "self_cuda_time_total_us",
                                      "self_cuda",
                                      "self_device",
                                      "self_xpu",
                                      "self_gpu",
                                      "self_cuda_us",
                                      "self_device_us",
                                      "self_gpu_us",
                                      NULL};
    static const char *const cpu[] = {"self_cpu_time_total", "self_cpu", "self_cpu_time_total_us",
                                      "self_cpu_us", NULL};
    static const char *const cpu_total[] = {"cpu_time_total", "cpu_total", "cpu_time_total_us",
                                            "cpu_total_us", NULL};
    static const char *const calls[] = {"count",     "calls",           "of_calls",   "n_calls",
                                        "num_calls", "number_of_calls", "call_count", NULL};
    static const char *const dt[] = {"dtype", "data_type", "precision", NULL};
    const tc_csv_row *h = &csv->rows[0];
    tc_gaps_cols c = {tc_csv_column(h, op),        tc_csv_column(h, cpu),   tc_csv_column(h, dev),
                      tc_csv_column(h, cpu_total), tc_csv_column(h, calls), tc_csv_column(h, dt)};
    if (c.name < 0) {
        char cols[512];
        tc_gaps_header_list(h, cols, sizeof cols);
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: no operator name column (it has: %s); expected name or key", name,
                       h->line, cols);
    }
    tc_gaps_raw_rows r = {
        .has_cpu = c.cpu >= 0, .has_dev = c.dev >= 0, .has_cpu_total = c.cpu_total >= 0};
    tc_err rc = TC_OK;
    for (size_t i = 1; rc == TC_OK && i < csv->n; i++)
        rc = tc_gaps_profiler_row(name, h, &csv->rows[i], &c, dtype, &r, err, errlen);
    out->format = TC_GAPS_PROFILER_CSV;
    if (rc == TC_OK)
        rc = tc_gaps_finish_profiler(name, &r, out, err, errlen);
    tc_gaps_raw_free(&r);
    return rc;
}

/* Columns of the plain CSV. */
typedef struct plain_cols {
    int op, dtype, count, share, pct;
} plain_cols;

static tc_err plain_share(const char *name, const tc_csv_row *row, const plain_cols *c,
                          double *share, char *err, size_t errlen)
{
    const char *cell = tc_gaps_cell(row, c->share >= 0 ? c->share : c->pct);
    char num[64];
    size_t n = strlen(cell);
    int pct = c->share < 0 || (n && cell[n - 1] == '%');
    if (n && cell[n - 1] == '%')
        n--;
    if (n == 0 || n >= sizeof num)
        goto bad;
    memcpy(num, cell, n);
    num[n] = '\0';
    if (tc_parse_plain_number(num, share) < 0)
        goto bad;
    if (pct)
        *share /= 100;
    if (*share <= 1)
        return TC_OK;
bad:
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "%s:%d: share '%s' of %s is not a fraction 0..1 or a percentage like 12.5%%",
                   name, row->line, cell, tc_gaps_cell(row, c->op));
}

static tc_err plain_row(const char *name, const tc_csv_row *row, const plain_cols *c,
                        const char *dtype, tc_gap_inventory *out, char *err, size_t errlen)
{
    const char *op = tc_gaps_cell(row, c->op), *dt = tc_gaps_cell(row, c->dtype);
    const char *count = tc_gaps_cell(row, c->count);
    double share = 0, calls = 0;
    if (!op[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: empty op", name, row->line);
    if (count[0] && tc_parse_plain_number(count, &calls) < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: count '%s' of %s is not a number (expected a count >= 0)", name,
                       row->line, count, op);
    if (!count[0] && out->source == TC_SHARE_COUNT)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: %s has no count", name, row->line, op);
    if (out->source == TC_SHARE_GIVEN) {
        tc_err rc = plain_share(name, row, c, &share, err, errlen);
        if (rc != TC_OK)
            return rc;
    }
    if (tc_gaps_inventory_add(out, op, dt[0] ? dt : dtype, 0, share, calls, count[0] != 0,
                              row->line) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    return TC_OK;
}

/* Count shares, or a check that given shares do not exceed the whole. */
static tc_err plain_finish(const char *name, tc_gap_inventory *out, char *err, size_t errlen)
{
    double sum = 0;
    for (size_t i = 0; i < out->n; i++)
        sum += out->source == TC_SHARE_COUNT ? out->ops[i].calls : out->ops[i].share;
    if (!isfinite(sum))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: the counts add up to more than a double holds", name);
    if (out->source == TC_SHARE_GIVEN) {
        if (sum > 1.005) /* rounding of a few percentages, not more */
            return tc_fail(err, errlen, TC_ERR_PARSE,
                           "%s: the shares add up to %.4g, over 1 (100%%): give each op's share "
                           "of the whole",
                           name, sum);
        return TC_OK;
    }
    if (sum <= 0)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: every count is 0", name);
    for (size_t i = 0; i < out->n; i++)
        out->ops[i].share = out->ops[i].calls / sum;
    return TC_OK;
}

static tc_err plain_csv(const char *name, const tc_csv *csv, const char *dtype,
                        tc_gap_inventory *out, char *err, size_t errlen)
{
    static const char *const op[] = {"op", "operator", "name", "op_name", "key", NULL};
    static const char *const dt[] = {"dtype", "data_type", "type", "precision", NULL};
    static const char *const count[] = {"count",     "calls",      "of_calls", "n_calls",
                                        "num_calls", "call_count", NULL};
    static const char *const share[] = {"share", "time_share", "fraction", "time_fraction", NULL};
    static const char *const pct[] = {
        "percent", "pct", "share_pct", "time_pct", "percentage", "time_share_pct", NULL};
    const tc_csv_row *h = &csv->rows[0];
    plain_cols c = {tc_csv_column(h, op), tc_csv_column(h, dt), tc_csv_column(h, count),
                    tc_csv_column(h, share), tc_csv_column(h, pct)};
    if (c.op < 0 || (c.count < 0 && c.share < 0 && c.pct < 0)) {
        char cols[512];
        tc_gaps_header_list(h, cols, sizeof cols);
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: no %s column (it has: %s); expected op,dtype,count or "
                       "op,dtype,share, or a profiler export with self_cuda_time_total",
                       name, h->line, c.op < 0 ? "op" : "count or share", cols);
    }
    out->format = TC_GAPS_PLAIN_CSV;
    out->source = c.share >= 0 || c.pct >= 0 ? TC_SHARE_GIVEN : TC_SHARE_COUNT;
    tc_err rc = TC_OK;
    for (size_t i = 1; rc == TC_OK && i < csv->n; i++)
        rc = plain_row(name, &csv->rows[i], &c, dtype, out, err, errlen);
    if (rc == TC_OK && out->n == 0)
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s: a header but no operator rows", name);
    return rc == TC_OK ? plain_finish(name, out, err, errlen) : rc;
}

tc_err tc_gaps_inventory_csv(const char *name, const tc_csv *csv, const char *dtype,
                             tc_gap_inventory *out, char *err, size_t errlen)
{
    static const char *const times[] = {"self_device_time_total",
                                        "self_cuda_time_total",
                                        "self_cpu_time_total",
                                        "self_cpu",
                                        "self_cuda",
                                        "self_device",
                                        "self_xpu_time_total",
                                        "self_cpu_us",
                                        "self_cuda_us",
                                        "self_device_us",
                                        NULL};
    if (csv->n == 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: empty: expected a profiler table, a key_averages CSV or "
                       "op,dtype,count",
                       name);
    if (tc_csv_column(&csv->rows[0], times) >= 0)
        return export_csv(name, csv, dtype, out, err, errlen);
    return plain_csv(name, csv, dtype, out, err, errlen);
}

tc_err tc_gaps_inventory_parse(const char *name, const char *text, size_t len,
                               const char *default_dtype, tc_gap_inventory *out, char *err,
                               size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    err[0] = '\0';
    const char *dtype = default_dtype && default_dtype[0] ? default_dtype : "unknown";
    if (len && memchr(text, '\0', len))
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: contains a NUL byte: not a text file", name);
    tc_err rc;
    tc_gaps_raw_rows r = {0};
    if (tc_gaps_read_table(name, text, len, dtype, &r, &rc, err, errlen)) {
        out->format = TC_GAPS_PROFILER_TABLE;
        if (rc == TC_OK)
            rc = tc_gaps_finish_profiler(name, &r, out, err, errlen);
        tc_gaps_raw_free(&r);
    } else {
        tc_csv csv;
        rc = tc_csv_parse(name, text, len, TC_CSV_COMMENTS, &csv, err, errlen);
        if (rc == TC_OK)
            rc = tc_gaps_inventory_csv(name, &csv, dtype, out, err, errlen);
        tc_csv_free(&csv);
    }
    if (rc != TC_OK)
        tc_gaps_inventory_free(out);
    return rc;
}
