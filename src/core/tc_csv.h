/* RFC 4180 CSV over bytes, the one reader of the house's CSV files (gap
 * tables, support lists, risk patterns, GPU spec tables): comma-separated
 * cells, quoted cells with "" for a quote, LF, CRLF or CR line ends, an
 * optional UTF-8 byte-order mark. Unquoted cells are trimmed of spaces and
 * tabs; blank lines are skipped. Every record knows the line it starts on,
 * so that callers can say "FILE:LINE: ...". */
#ifndef TC_CSV_H
#define TC_CSV_H

#include <stddef.h>

#include "core/tc_buf.h"
#include "core/tc_error.h"

typedef struct tc_csv_row {
    char **fields; /* n NUL-terminated cells, unquoted and unescaped */
    size_t n;
    int line; /* the line the record starts on, 1-based */
} tc_csv_row;

typedef struct tc_csv {
    tc_csv_row *rows;
    size_t n;
} tc_csv;

/* Flags of the reader. */
enum {
    TC_CSV_COMMENTS = 1, /* skip lines whose first non-blank byte is '#' */
    /* One record per line: only LF (or CRLF) ends a line, a lone CR is a
     * byte of its cell, and a quoted cell must end on its line. */
    TC_CSV_LINES = 2
};

/* What was wrong, for callers that word their own messages. */
typedef enum tc_csv_problem {
    TC_CSV_NONE = 0,
    TC_CSV_UNCLOSED_QUOTE,   /* never closed (TC_CSV_LINES: not on its line) */
    TC_CSV_TEXT_AFTER_QUOTE, /* e.g. "a"b */
    TC_CSV_QUOTE_IN_CELL,    /* a quote inside an unquoted cell */
    TC_CSV_TOO_MANY_CELLS,   /* more than max_cells */
    TC_CSV_CELL_TOO_LONG,    /* more than max_cell_len bytes */
    TC_CSV_NUL_BYTE          /* a NUL byte on the line */
} tc_csv_problem;

/* A reader of one text, record by record, so that a caller meets a bad
 * record in file order among its own checks of the records before it. */
typedef struct tc_csv_reader {
    const char *name; /* starts every message */
    const char *text;
    size_t len;
    int flags;
    size_t max_cells;    /* per record; 1024 unless changed before reading */
    size_t max_cell_len; /* bytes of one cell; 0 (the default): no limit */
    /* After TC_ERR_PARSE: what, the line it was found on, the 0-based cell. */
    tc_csv_problem problem;
    int problem_line;
    size_t problem_cell;
    /* internal */
    size_t pos;
    int line;
    tc_buf cell;       /* the record's cells, each ended by a NUL */
    size_t cell_start; /* where the cell being read starts in `cell` */
    size_t *starts;    /* where each cell of the record starts in `cell` */
    size_t cap;        /* room in starts and row.fields */
    tc_csv_row row;    /* its fields point into `cell` */
} tc_csv_reader;

/* Sets up *r over `len` bytes of `text` (skipping a byte-order mark). */
void tc_csv_reader_init(tc_csv_reader *r, const char *name, const char *text, size_t len,
                        int flags);

/* Reads the next record: *row points at it (owned by the reader, valid
 * until the next call), or is NULL at the end. Returns TC_OK, TC_ERR_PARSE
 * (r->problem says what; err "NAME:LINE: ..." in the gap table's words) or
 * TC_ERR_NOMEM ("NAME: out of memory"). */
TC_MUST_CHECK tc_err tc_csv_next(tc_csv_reader *r, const tc_csv_row **row, char *err,
                                 size_t errlen);

/* Frees what the reader holds; accepts NULL. */
void tc_csv_reader_free(tc_csv_reader *r);

/* Parses all of `len` bytes of CSV into *out (the caller frees it with
 * tc_csv_free). Returns TC_OK, TC_ERR_PARSE ("NAME: contains a NUL byte:
 * not a text file", or a record's problem as tc_csv_next says it),
 * TC_ERR_INVALID (NULL arguments) or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_csv_parse(const char *name, const char *text, size_t len, int flags,
                                  tc_csv *out, char *err, size_t errlen);

/* Frees every row and zeroes *csv; accepts NULL. */
void tc_csv_free(tc_csv *csv);

/* The canonical spelling of a header cell, written into out: ASCII
 * lowercased, '%' spelt "pct", every other run of non-alphanumerics one
 * '_', none at either end ("# of Calls" -> "of_calls", "Self CUDA %" ->
 * "self_cuda_pct"). */
void tc_csv_header_key(const char *cell, char *out, size_t outlen);

/* The index of the first cell of `header` whose canonical key is one of the
 * NULL-ended `keys` (canonical spellings), or -1. */
int tc_csv_column(const tc_csv_row *header, const char *const *keys);

#endif
