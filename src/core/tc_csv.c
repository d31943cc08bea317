/* RFC 4180 CSV over bytes. */
#include "core/tc_csv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A record of 1024 cells is no table of ours; refusing it bounds memory. */
#define MAX_CELLS 1024

void tc_csv_reader_init(tc_csv_reader *r, const char *name, const char *text, size_t len, int flags)
{
    *r = (tc_csv_reader){.name = name,
                         .text = text,
                         .len = text ? len : 0,
                         .flags = flags,
                         .max_cells = MAX_CELLS,
                         .line = 1};
    if (r->len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        r->pos = 3; /* spreadsheets write a UTF-8 byte-order mark */
}

/* 1 when a line ends at p: LF, CRLF or (unless TC_CSV_LINES) a lone CR. */
static int line_end_at(const tc_csv_reader *r, size_t p)
{
    if (p >= r->len || r->text[p] == '\n')
        return 1;
    if (r->text[p] != '\r')
        return 0;
    return !(r->flags & TC_CSV_LINES) || p + 1 >= r->len || r->text[p + 1] == '\n';
}

static int at_line_end(const tc_csv_reader *r)
{
    return line_end_at(r, r->pos);
}

/* Consumes one line end (LF, CRLF or a lone CR) if there is one. */
static void eat_line_end(tc_csv_reader *r)
{
    if (r->pos < r->len && r->text[r->pos] == '\r')
        r->pos++;
    if (r->pos < r->len && r->text[r->pos] == '\n')
        r->pos++;
    r->line++;
}

static void skip_blanks(tc_csv_reader *r)
{
    while (r->pos < r->len && (r->text[r->pos] == ' ' || r->text[r->pos] == '\t'))
        r->pos++;
}

/* The messages in the gap table's words; callers may word their own. */
static tc_err problem(tc_csv_reader *r, tc_csv_problem what, int line, char *err, size_t errlen)
{
    static const char *const why[] = {
        [TC_CSV_UNCLOSED_QUOTE] = "a quoted cell opened on this line is never closed",
        [TC_CSV_TEXT_AFTER_QUOTE] =
            "text after a closing quote (inside a quoted cell write a quote as \"\")",
        [TC_CSV_QUOTE_IN_CELL] = "a quote inside an unquoted cell (quote the whole cell and "
                                 "write the quote as \"\")",
        [TC_CSV_NUL_BYTE] = "a NUL byte: not a text file"};
    r->problem = what;
    r->problem_line = line;
    r->problem_cell = r->row.n;
    if (what == TC_CSV_TOO_MANY_CELLS)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: more than %zu cells in a row", r->name,
                       line, r->max_cells);
    if (what == TC_CSV_CELL_TOO_LONG)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: a cell longer than %zu bytes", r->name,
                       line, r->max_cell_len);
    if (what == TC_CSV_UNCLOSED_QUOTE && (r->flags & TC_CSV_LINES))
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: a quoted cell does not end on its line",
                       r->name, line);
    return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: %s", r->name, line, why[what]);
}

/* A NUL byte on the line starting at r->pos: a binary file, named before
 * anything else on that line. */
static int nul_on_line(const tc_csv_reader *r)
{
    const char *s = r->text + r->pos, *end = r->text + r->len;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *z = memchr(s, '\0', (size_t)((nl ? nl : end) - s));
    if (!z)
        return 0;
    /* A NUL before the LF: on this line unless a CR ends the line first. */
    for (const char *cr = s; (cr = memchr(cr, '\r', (size_t)(z - cr))) != NULL; cr++)
        if (line_end_at(r, (size_t)(cr - r->text)))
            return 0;
    return 1;
}

/* A blank line, or a comment line when comments are on: skipped whole. */
static int skippable_line(tc_csv_reader *r)
{
    size_t p = r->pos;
    while (p < r->len && (r->text[p] == ' ' || r->text[p] == '\t'))
        p++;
    int blank = line_end_at(r, p);
    int comment = (r->flags & TC_CSV_COMMENTS) && p < r->len && r->text[p] == '#';
    if (!blank && !comment)
        return 0;
    r->pos = p;
    while (!at_line_end(r))
        r->pos++;
    eat_line_end(r);
    return 1;
}

/* Appends one byte of a quoted cell, within max_cell_len. */
static tc_err cell_byte(tc_csv_reader *r, char c, char *err, size_t errlen)
{
    if (r->max_cell_len && r->cell.len - r->cell_start >= r->max_cell_len)
        return problem(r, TC_CSV_CELL_TOO_LONG, r->line, err, errlen);
    tc_buf_append(&r->cell, &c, 1);
    return TC_OK;
}

/* The bytes from r->pos that hold no quote, line end or NUL: they go into
 * a quoted cell as they are, in one append (a byte at a time was most of
 * the time of reading a kernel trace of long quoted names). */
static size_t quoted_run(const tc_csv_reader *r)
{
    size_t p = r->pos;
    while (p < r->len && r->text[p] != '"' && r->text[p] != '\n' && r->text[p] != '\r' &&
           r->text[p] != '\0')
        p++;
    return p - r->pos;
}

/* A quoted cell, the opening quote at r->pos. Line breaks inside are kept
 * and counted (unless TC_CSV_LINES, where they end it too soon). */
static tc_err quoted_cell(tc_csv_reader *r, char *err, size_t errlen)
{
    int opened = r->line;
    r->pos++;
    for (;;) {
        if (r->pos >= r->len || ((r->flags & TC_CSV_LINES) && at_line_end(r)))
            return problem(r, TC_CSV_UNCLOSED_QUOTE, opened, err, errlen);
        size_t run = quoted_run(r);
        if (run) { /* the bytes up to the next quote or line end, at once */
            if (r->max_cell_len && r->cell.len - r->cell_start + run > r->max_cell_len)
                return problem(r, TC_CSV_CELL_TOO_LONG, r->line, err, errlen);
            tc_buf_append(&r->cell, r->text + r->pos, run);
            r->pos += run;
            continue;
        }
        char c = r->text[r->pos++];
        if (c == '"' && (r->pos >= r->len || r->text[r->pos] != '"'))
            break;
        if (c == '"')
            r->pos++; /* the first of "" */
        tc_err rc = cell_byte(r, c, err, errlen);
        if (rc != TC_OK)
            return rc;
        if (!(r->flags & TC_CSV_LINES) &&
            (c == '\n' || (c == '\r' && (r->pos >= r->len || r->text[r->pos] != '\n')))) {
            r->line++;
            if (nul_on_line(r))
                return problem(r, TC_CSV_NUL_BYTE, r->line, err, errlen);
        }
    }
    skip_blanks(r);
    if (!at_line_end(r) && r->text[r->pos] != ',')
        return problem(r, TC_CSV_TEXT_AFTER_QUOTE, r->line, err, errlen);
    return TC_OK;
}

static tc_err plain_cell(tc_csv_reader *r, char *err, size_t errlen)
{
    size_t start = r->pos;
    for (;;) { /* to a comma or the line end; only 4 bytes need a look */
        while (r->pos < r->len && r->text[r->pos] != ',' && r->text[r->pos] != '\n' &&
               r->text[r->pos] != '\r' && r->text[r->pos] != '"')
            r->pos++;
        if (r->pos >= r->len || r->text[r->pos] == ',' || at_line_end(r))
            break;
        if (r->text[r->pos] == '"')
            return problem(r, TC_CSV_QUOTE_IN_CELL, r->line, err, errlen);
        r->pos++; /* a lone CR of TC_CSV_LINES: a byte of the cell */
    }
    size_t end = r->pos;
    while (end > start && (r->text[end - 1] == ' ' || r->text[end - 1] == '\t'))
        end--;
    if (r->max_cell_len && end - start > r->max_cell_len)
        return problem(r, TC_CSV_CELL_TOO_LONG, r->line, err, errlen);
    tc_buf_append(&r->cell, r->text + start, end - start);
    return TC_OK;
}

/* Ends the cell being read: its NUL, and its start kept. The cells of a
 * record share one buffer, so a record costs no allocation once the
 * reader has seen one as wide. */
static tc_err push_cell(tc_csv_reader *r)
{
    if (r->row.n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        size_t *starts = realloc(r->starts, cap * sizeof *starts);
        if (!starts)
            return TC_ERR_NOMEM;
        r->starts = starts;
        char **fields = realloc(r->row.fields, cap * sizeof *fields);
        if (!fields)
            return TC_ERR_NOMEM;
        r->row.fields = fields;
        r->cap = cap;
    }
    r->starts[r->row.n++] = r->cell_start;
    tc_buf_append(&r->cell, "", 1); /* the cell's NUL */
    r->cell_start = r->cell.len;
    return tc_buf_status(&r->cell);
}

static tc_err read_record(tc_csv_reader *r, char *err, size_t errlen)
{
    for (;;) {
        if (r->row.n >= r->max_cells)
            return problem(r, TC_CSV_TOO_MANY_CELLS, r->line, err, errlen);
        skip_blanks(r);
        tc_err rc = r->pos < r->len && r->text[r->pos] == '"' ? quoted_cell(r, err, errlen)
                                                              : plain_cell(r, err, errlen);
        if (rc == TC_OK && push_cell(r) != TC_OK)
            rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", r->name);
        if (rc != TC_OK)
            return rc;
        if (at_line_end(r))
            break;
        r->pos++; /* the comma */
    }
    eat_line_end(r);
    for (size_t i = 0; i < r->row.n; i++) /* the buffer no longer moves */
        r->row.fields[i] = r->cell.data + r->starts[i];
    return TC_OK;
}

static void row_clear(tc_csv_row *row)
{
    for (size_t i = 0; i < row->n; i++)
        free(row->fields[i]);
    free(row->fields);
    *row = (tc_csv_row){0};
}

tc_err tc_csv_next(tc_csv_reader *r, const tc_csv_row **row, char *err, size_t errlen)
{
    *row = NULL;
    r->row.n = 0;
    tc_buf_reset(&r->cell);
    r->cell_start = 0;
    for (;;) {
        if (r->pos >= r->len)
            return TC_OK;
        if (nul_on_line(r))
            return problem(r, TC_CSV_NUL_BYTE, r->line, err, errlen);
        if (!skippable_line(r))
            break;
    }
    r->row.line = r->line;
    tc_err rc = read_record(r, err, errlen);
    if (rc == TC_OK)
        *row = &r->row;
    return rc;
}

void tc_csv_reader_free(tc_csv_reader *r)
{
    if (!r)
        return;
    free(r->row.fields);
    free(r->starts);
    r->row = (tc_csv_row){0};
    r->starts = NULL;
    r->cap = 0;
    tc_buf_free(&r->cell);
}

void tc_csv_free(tc_csv *csv)
{
    if (!csv)
        return;
    for (size_t i = 0; i < csv->n; i++)
        row_clear(&csv->rows[i]);
    free(csv->rows);
    csv->rows = NULL;
    csv->n = 0;
}

/* Copies the reader's record to the end of out (its cells each their own
 * allocation, as tc_csv_free frees them). */
static tc_err take_row(tc_csv *out, const tc_csv_reader *r)
{
    tc_csv_row *grown = realloc(out->rows, (out->n + 1) * sizeof *grown);
    if (!grown)
        return TC_ERR_NOMEM;
    out->rows = grown;
    tc_csv_row *dst = &out->rows[out->n++];
    *dst = (tc_csv_row){.line = r->row.line};
    if (!(dst->fields = malloc((r->row.n ? r->row.n : 1) * sizeof *dst->fields)))
        return TC_ERR_NOMEM;
    for (; dst->n < r->row.n; dst->n++)
        if (!(dst->fields[dst->n] = strdup(r->row.fields[dst->n])))
            return TC_ERR_NOMEM;
    return TC_OK;
}

tc_err tc_csv_parse(const char *name, const char *text, size_t len, int flags, tc_csv *out,
                    char *err, size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (len && memchr(text, '\0', len))
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: contains a NUL byte: not a text file", name);
    tc_csv_reader r;
    tc_csv_reader_init(&r, name, text, len, flags);
    tc_err rc;
    const tc_csv_row *row;
    while ((rc = tc_csv_next(&r, &row, err, errlen)) == TC_OK && row)
        if (take_row(out, &r) != TC_OK) {
            rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
            break;
        }
    tc_csv_reader_free(&r);
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
