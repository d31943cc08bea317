/* Strict INI text in memory, over inih: the reader that feeds inih from a
 * buffer and counts lines (the system inih is built without
 * INI_HANDLER_LINENO), the first error kept as "NAME:LINE: detail", the
 * mapping of inih's result to an error code, and a reader driven by a
 * table of the keys a file may hold (tc_ini_read). Cost profiles and
 * assessments are read with it. */
#ifndef TC_INI_H
#define TC_INI_H

#include <stddef.h>

#include <ini.h>

#include "core/tc_error.h"

typedef struct tc_ini {
    const char *name; /* the file, for messages */
    const char *text;
    size_t len, pos;
    int line;   /* of the line being handled, from 1 */
    int failed; /* an error is recorded in err */
    char *err;
    size_t errlen;
    /* Called with each new line before inih sees it (may be NULL). */
    void (*on_line)(void *user, const char *line);
    void *user;
} tc_ini;

/* Sets up *ini over `len` bytes of `text` named `name`; errors go to err. */
void tc_ini_init(tc_ini *ini, const char *name, const char *text, size_t len, char *err,
                 size_t errlen);

/* Records "NAME:LINE: detail" unless an error is recorded already (later
 * errors often follow from the first). Returns 0, what an inih handler
 * returns to say "error". */
int tc_ini_fail(tc_ini *ini, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runs inih over the text with `handler` (given `user`). Returns TC_OK;
 * TC_ERR_PARSE for a NUL byte, a recorded error or a line inih cannot
 * read ("NAME:LINE: not a '[section]' or 'key = value' line"); or
 * TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_ini_run(tc_ini *ini, ini_handler handler, void *user);

/* ---- a schema: the keys a file may hold, read by one reader ------------- */

typedef enum tc_ini_kind {
    /* A plain decimal number (tc_parse_plain_number) in [min, max]: the
     * double at .at, 1 in the int at .valid_at, the line in the int at
     * .line_at (TC_INI_NUMBER_AT sets all three). */
    TC_INI_NUMBER,
    /* One of the NULL-ended .words: its index + 1 in the int at .at, the
     * line in the int at .line_at. */
    TC_INI_ANSWER,
    /* A label of 1 to .size - 1 bytes, copied into the char[.size] at .at. */
    TC_INI_STRING,
    /* Read by .parse into the member at .at (a range "low..mode..high", ...). */
    TC_INI_CUSTOM
} tc_ini_kind;

/* Flags of a key. */
enum {
    TC_INI_REQUIRED = 1,  /* missing: an error after the whole file is read */
    TC_INI_ABOVE_MIN = 2, /* TC_INI_NUMBER: the value must be above min, not equal */
    TC_INI_WHOLE = 4      /* TC_INI_NUMBER: a whole number */
};

typedef struct tc_ini_key tc_ini_key;

/* Reads `value`, given on `line`, into `dest` (the member at k->at).
 * Returns 0, or -1 with why in `why` (no file, section or key: the reader
 * adds them, and the expected form). */
typedef int (*tc_ini_parse_fn)(const tc_ini_key *k, const char *value, int line, void *dest,
                               char *why, size_t whylen);

struct tc_ini_key {
    const char *section; /* "" for a key before the first [section] */
    const char *key;
    tc_ini_kind kind;
    unsigned flags;
    size_t at, valid_at, line_at; /* offsets in the caller's struct */
    double min, max;              /* TC_INI_NUMBER (and what .parse makes of them) */
    const char *const *words;     /* TC_INI_ANSWER */
    size_t size;                  /* TC_INI_STRING */
    tc_ini_parse_fn parse;        /* TC_INI_CUSTOM */
    const char *expect;           /* the expected form, e.g. "months > 0, e.g. 36" */
};

/* The offsets of a number destination: a member with `int valid`, `double
 * value` and `int line`. */
#define TC_INI_NUMBER_AT(type, member)                                                             \
    .at = offsetof(type, member.value), .valid_at = offsetof(type, member.valid),                  \
    .line_at = offsetof(type, member.line)

/* How a file's messages read, "[section] key: " and then:
 *   TC_INI_PARENS  "'x' is not a number (expected E)", "given twice",
 *                  "[section] unknown key 'k' (known: a, b)";
 *   TC_INI_SEMICOLON  "'-1' is negative; expected E", "given twice;
 *                  expected it once", "[section] k: unknown key; expected
 *                  one of: a, b". */
typedef enum tc_ini_dialect { TC_INI_PARENS, TC_INI_SEMICOLON } tc_ini_dialect;

#define TC_INI_MAX_KEYS 64

typedef struct tc_ini_schema {
    const tc_ini_key *keys; /* the known sections are theirs, in this order */
    size_t n_keys;          /* at most TC_INI_MAX_KEYS */
    tc_ini_dialect dialect;
    int strict_sections; /* 1: an unknown "[section]" fails on its own line, even with no key */
    /* Called after each key is stored (may be NULL), for rules across keys:
     * returns 1, or 0 after tc_ini_fail. */
    int (*check)(tc_ini *ini, const tc_ini_key *k, void *out);
} tc_ini_schema;

/* Runs inih over the text (as tc_ini_run, using ini->on_line) and stores
 * each key into *out as its row of the schema says. Refused: a section or key not in the
 * schema, a bad value ("NAME:LINE: [section] key: what; expected E" in the
 * schema's dialect), a key given twice (a key before the first [section]
 * may be given again: the last one counts) and, once all is read, a
 * missing TC_INI_REQUIRED key (the first, at the line of its section, and
 * how many more). Returns TC_OK, TC_ERR_PARSE, TC_ERR_NOMEM, or
 * TC_ERR_INVALID for a schema of more than TC_INI_MAX_KEYS keys. */
TC_MUST_CHECK tc_err tc_ini_read(tc_ini *ini, const tc_ini_schema *schema, void *out);

/* ---- one loader for every INI file (cost profiles, assessments) ------- */

/* Reads an INI text of `len` bytes named `name` into out. */
typedef tc_err (*tc_ini_file_fn)(const char *name, const char *text, size_t len, void *out,
                                 char *err, size_t errlen);

/* Reads the file at path (`what` it should be, for messages: "a cost
 * profile"; at most 1 MiB: such files are a few hundred bytes) and hands
 * it to parse. TC_ERR_INVALID for a NULL argument; else read's or
 * parse's result, with the detail in err. */
TC_MUST_CHECK tc_err tc_ini_load(const char *path, const char *what, tc_ini_file_fn parse,
                                 void *out, char *err, size_t errlen);

#endif
