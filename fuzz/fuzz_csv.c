/* libFuzzer target: the CSV reader of core/ (tc_csv_next, tc_csv_parse),
 * fed any bytes. The first byte picks the flags and limits. Whatever it
 * accepts must keep its limits and its line order, the whole-text parse
 * must agree with the record reader, and the records written back as CSV
 * (every cell quoted) must read back the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_buf.h"
#include "core/tc_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(tc_err rc, const char *err, size_t errlen)
{
    if (rc != TC_OK && rc != TC_ERR_NOMEM && (err[0] == '\0' || !memchr(err, 0, errlen)))
        __builtin_trap(); /* every rejection explains itself */
}

static void same_rows(const tc_csv *a, const tc_csv *b, int lines_too)
{
    if (a->n != b->n)
        __builtin_trap();
    for (size_t i = 0; i < a->n; i++) {
        if (a->rows[i].n != b->rows[i].n || (lines_too && a->rows[i].line != b->rows[i].line))
            __builtin_trap();
        for (size_t j = 0; j < a->rows[i].n; j++)
            if (strcmp(a->rows[i].fields[j], b->rows[i].fields[j]) != 0)
                __builtin_trap();
    }
}

/* Reads record by record, checking each against the reader's limits, and
 * keeps copies in *out (rows only; the caller frees it). */
static tc_err read_all(const char *text, size_t len, int flags, size_t max_cells, size_t max_len,
                       tc_csv *out, char *err, size_t errlen)
{
    tc_csv_reader r;
    tc_csv_reader_init(&r, "fuzz", text, len, flags);
    r.max_cells = max_cells;
    r.max_cell_len = max_len;
    const tc_csv_row *row;
    tc_err rc;
    int last = 0;
    *out = (tc_csv){0};
    while ((rc = tc_csv_next(&r, &row, err, errlen)) == TC_OK && row) {
        if (row->n == 0 || row->n > max_cells || row->line <= last)
            __builtin_trap();
        last = row->line;
        tc_csv_row copy = {calloc(row->n, sizeof(char *)), row->n, row->line};
        tc_csv_row *grown = realloc(out->rows, (out->n + 1) * sizeof *grown);
        if (!copy.fields || !grown) {
            free(copy.fields);
            free(grown ? grown : out->rows);
            out->rows = NULL;
            out->n = 0;
            tc_csv_reader_free(&r);
            return TC_ERR_NOMEM;
        }
        out->rows = grown;
        for (size_t i = 0; i < row->n; i++) {
            if ((max_len && strlen(row->fields[i]) > max_len) ||
                ((flags & TC_CSV_LINES) && strchr(row->fields[i], '\n')))
                __builtin_trap();
            copy.fields[i] = strdup(row->fields[i]);
        }
        out->rows[out->n++] = copy;
    }
    if (rc == TC_ERR_PARSE && (r.problem == TC_CSV_NONE || r.problem_line < 1))
        __builtin_trap(); /* a parse error says what and where */
    tc_csv_reader_free(&r);
    if (rc != TC_OK)
        tc_csv_free(out);
    return rc;
}

/* The rows as CSV, every cell quoted. */
static void write_csv(const tc_csv *csv, tc_buf *b)
{
    for (size_t i = 0; i < csv->n; i++) {
        for (size_t j = 0; j < csv->rows[i].n; j++) {
            tc_buf_puts(b, j ? ",\"" : "\"");
            for (const char *p = csv->rows[i].fields[j]; *p; p++) {
                if (*p == '"')
                    tc_buf_puts(b, "\"\"");
                else
                    tc_buf_append(b, p, 1);
            }
            tc_buf_puts(b, "\"");
        }
        tc_buf_puts(b, "\n");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    int flags = data[0] & (TC_CSV_COMMENTS | TC_CSV_LINES);
    size_t max_cells = data[0] & 4 ? 9 : 1024;
    size_t max_len = data[0] & 8 ? 255 : 0;
    char err[512] = "";
    tc_csv rows, whole;
    tc_err rc = read_all(text, len, flags, max_cells, max_len, &rows, err, sizeof err);
    check_err(rc, err, sizeof err);
    if (max_cells != 1024 || max_len)
        goto out; /* tc_csv_parse has the default limits */
    char err2[512] = "";
    tc_err rc2 = tc_csv_parse("fuzz", text, len, flags, &whole, err2, sizeof err2);
    check_err(rc2, err2, sizeof err2);
    if (memchr(text, '\0', len) == NULL && rc != TC_ERR_NOMEM && rc2 != TC_ERR_NOMEM) {
        if (rc != rc2 || (rc != TC_OK && strcmp(err, err2) != 0))
            __builtin_trap(); /* the parse is the reader, record by record */
        if (rc == TC_OK)
            same_rows(&rows, &whole, 1);
    }
    if (rc2 == TC_OK)
        tc_csv_free(&whole);
    if (rc == TC_OK) {
        tc_buf b = {0};
        write_csv(&rows, &b);
        tc_csv again;
        if (tc_buf_status(&b) == TC_OK && tc_csv_parse("again", b.data ? b.data : "", b.len, flags,
                                                       &again, err, sizeof err) == TC_OK) {
            same_rows(&rows, &again, 0);
            tc_csv_free(&again);
        } else if (tc_buf_status(&b) == TC_OK) {
            __builtin_trap(); /* what was read writes back readably */
        }
        tc_buf_free(&b);
    }
out:
    if (rc == TC_OK)
        tc_csv_free(&rows);
    return 0;
}
