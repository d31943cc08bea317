/* Unit tests of src/core: errors, buffer and JSON escaping, time, RNG,
 * numbers, files, the CSV reader and the INI schema reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unistd.h>

#include "core/tc_buf.h"
#include "core/tc_csv.h"
#include "core/tc_error.h"
#include "core/tc_file.h"
#include "core/tc_ini.h"
#include "core/tc_outfile.h"
#include "core/tc_number.h"
#include "core/tc_redact.h"
#include "core/tc_rng.h"
#include "core/tc_time.h"

static void strerror_covers_every_code(void **state)
{
    (void)state;
    for (int e = TC_OK; e <= TC_ERR_BUSY; e++)
        assert_string_not_equal(tc_strerror((tc_err)e), "unknown error");
    assert_string_equal(tc_strerror((tc_err)999), "unknown error");
}

static void fail_formats_detail_and_returns_code(void **state)
{
    (void)state;
    char buf[32];
    assert_int_equal(tc_fail(buf, sizeof buf, TC_ERR_PARSE, "line %d", 7), TC_ERR_PARSE);
    assert_string_equal(buf, "line 7");
    assert_int_equal(tc_fail(NULL, 0, TC_ERR_IO, "x"), TC_ERR_IO);
}

static void buf_grows_and_resets(void **state)
{
    (void)state;
    tc_buf b = {0};
    for (int i = 0; i < 1000; i++)
        tc_buf_printf(&b, "%04d", i);
    assert_int_equal(b.len, 4000);
    assert_memory_equal(b.data + 3996, "0999", 4);
    tc_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    tc_buf_printf(&b, "%s",
                  "a long enough string to pass the small buffer of printf ....... "
                  "......................................................... "
                  "......................................................... "
                  "......................................................... end");
    assert_int_equal(tc_buf_status(&b), TC_OK);
    assert_string_equal(b.data + b.len - 3, "end");
    tc_buf_free(&b);
    tc_buf_free(NULL);
}

static void json_escaping_round_trips(void **state)
{
    (void)state;
    const char raw[] = "q\"b\\s/\n\r\t\x01\x1f end \xc3\xa9";
    tc_buf b = {0};
    tc_buf_json_str(&b, raw, sizeof raw - 1);
    assert_string_equal(b.data, "\"q\\\"b\\\\s/\\n\\r\\t\\u0001\\u001f end \xc3\xa9\"");
    json_t *v = json_loads(b.data, JSON_DECODE_ANY, NULL);
    assert_non_null(v);
    assert_string_equal(json_string_value(v), raw);
    json_decref(v);
    tc_buf_free(&b);
}

static void rfc3339_is_utc_with_nanoseconds(void **state)
{
    (void)state;
    char buf[40];
    assert_string_equal(tc_rfc3339_ns(0, buf, sizeof buf), "1970-01-01T00:00:00.000000000Z");
    assert_string_equal(tc_rfc3339_ns(1795966314123456789LL, buf, sizeof buf),
                        "2026-11-29T15:31:54.123456789Z");
    assert_string_equal(tc_rfc3339_ns(1, buf, 10), ""); /* too small: empty, no overflow */
    int64_t a = tc_mono_ns(), b = tc_mono_ns();
    assert_true(b >= a);
}

static void rng_is_reproducible_and_uniform(void **state)
{
    (void)state;
    tc_rng r1, r2;
    tc_rng_seed(&r1, 42);
    tc_rng_seed(&r2, 42);
    double sum = 0;
    for (int i = 0; i < 10000; i++) {
        double u = tc_rng_unit(&r1);
        assert_true(u >= 0 && u < 1);
        assert_true(u == tc_rng_unit(&r2));
        sum += u;
    }
    assert_true(sum / 10000 > 0.48 && sum / 10000 < 0.52);
    assert_true(tc_hash3(1, 2, 3) == tc_hash3(1, 2, 3));
    assert_true(tc_hash3(1, 2, 3) != tc_hash3(1, 2, 4));
}

/* Plain decimals only: a typo in a profile must not become a number. */
static void plain_numbers_are_strict(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double value;
    } ok[] = {{"0", 0},           {"0.3", 0.3}, {"36", 36}, {"2e9", 2e9},
              {"1.5E-3", 1.5e-3}, {".5", 0.5},  {"7.", 7}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = -1;
        assert_int_equal(tc_parse_plain_number(ok[i].text, &v), 0);
        assert_true(v == ok[i].value);
    }
    static const char *const bad[] = {"",   "-1",  "+1",  "1,5",   "0x10", "inf", "nan",
                                      "1e", "1e+", "3 W", "1e999", ".",    "e5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 42;
        if (tc_parse_plain_number(bad[i], &v) != -1)
            fail_msg("'%s' was taken as a number", bad[i]);
        assert_true(v == 42); /* unchanged */
    }
}

/* An output file is replaced whole or not at all. */
static void outfiles_replace_whole_or_not_at_all(void **state)
{
    (void)state;
    char dir[] = "/tmp/truecost-outfile-XXXXXX", path[128], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.txt", dir);
    assert_int_equal(tc_outfile_write(path, "old\n", err, sizeof err), TC_OK);
    tc_outfile o;
    assert_int_equal(tc_outfile_open(path, &o, err, sizeof err), TC_OK);
    fputs("half", o.f);
    tc_outfile_abort(&o); /* an error half way: the old text stays */
    char *text;
    size_t len;
    assert_int_equal(tc_read_file(path, 100, "a test file", &text, &len, err, sizeof err), TC_OK);
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(tc_outfile_open(path, &o, err, sizeof err), TC_OK);
    fputs("new\n", o.f);
    assert_int_equal(tc_outfile_commit(&o, err, sizeof err), TC_OK);
    assert_int_equal(tc_read_file(path, 100, "a test file", &text, &len, err, sizeof err), TC_OK);
    assert_string_equal(text, "new\n");
    free(text);
    struct stat st;
    mode_t mask = umask(022);
    umask(mask);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask); /* not mkstemp's 0600 */
    assert_true(tc_same_file(path, path));
    assert_false(tc_same_file(path, dir));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0); /* nothing temporary was left */
    assert_int_equal(tc_outfile_open("/nonexistent/dir/x", &o, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent/dir/x: cannot write: No such file"));
}

static void whole_files_are_read_with_a_limit(void **state)
{
    (void)state;
    char path[] = "/tmp/tc_file_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static char big[10000];
    memset(big, 'x', sizeof big);
    assert_int_equal(write(fd, big, sizeof big), (ssize_t)sizeof big);
    close(fd);
    char *text = NULL, err[256];
    size_t len = 0;
    assert_int_equal(tc_read_file(path, 1 << 20, "a test file", &text, &len, err, sizeof err),
                     TC_OK);
    assert_int_equal(len, sizeof big);
    assert_int_equal(text[len], '\0'); /* NUL-terminated for parsers that want it */
    free(text);
    assert_int_equal(tc_read_file(path, 4096, "a test file", &text, &len, err, sizeof err),
                     TC_ERR_PARSE);
    assert_null(text);
    assert_non_null(strstr(err, "not a test file"));
    unlink(path);
    assert_int_equal(tc_read_file(path, 4096, "a test file", &text, &len, err, sizeof err),
                     TC_ERR_IO);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "No such file"));
}

/* ---- CSV ---- */

static void csv_reads_quotes_crlf_comments_and_lines(void **state)
{
    (void)state;
    static const char text[] = "\xEF\xBB\xBF"
                               "op , dtype,\"a, \"\"quoted\"\"\"\r\n"
                               "# a comment\r\n"
                               "\r\n"
                               "  mm,\"two\r\nlines\" ,\r\n"
                               "last,\"\",x";
    tc_csv c;
    char err[256];
    assert_int_equal(
        tc_csv_parse("t.csv", text, sizeof text - 1, TC_CSV_COMMENTS, &c, err, sizeof err), TC_OK);
    assert_int_equal(c.n, 3);
    assert_int_equal(c.rows[0].n, 3);
    assert_string_equal(c.rows[0].fields[0], "op"); /* trimmed, the mark skipped */
    assert_string_equal(c.rows[0].fields[2], "a, \"quoted\"");
    assert_int_equal(c.rows[0].line, 1);
    assert_int_equal(c.rows[1].line, 4);
    assert_string_equal(c.rows[1].fields[1], "two\r\nlines");
    assert_string_equal(c.rows[1].fields[2], ""); /* a trailing comma is an empty cell */
    assert_int_equal(c.rows[2].line, 6);          /* the quoted line break counts */
    assert_string_equal(c.rows[2].fields[1], "");
    tc_csv_free(&c);
    tc_csv_free(&c); /* zeroed: twice is harmless */
    tc_csv_free(NULL);
    /* Without comments a '#' line is a record. */
    assert_int_equal(tc_csv_parse("t.csv", "# x\n", 4, 0, &c, err, sizeof err), TC_OK);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.rows[0].fields[0], "# x");
    tc_csv_free(&c);
}

/* Parses text expecting TC_ERR_PARSE with exactly `want` as the message. */
static void csv_fails(const char *text, int flags, const char *want)
{
    tc_csv c;
    char err[256] = "";
    assert_int_equal(tc_csv_parse("t.csv", text, strlen(text), flags, &c, err, sizeof err),
                     TC_ERR_PARSE);
    assert_string_equal(err, want);
    assert_null(c.rows);
}

static void csv_errors_name_their_line(void **state)
{
    (void)state;
    csv_fails("a,b\n\"open\nstill open", 0,
              "t.csv:2: a quoted cell opened on this line is never closed");
    csv_fails("a,b\r\nc,\"x\"y\r\n", 0,
              "t.csv:2: text after a closing quote (inside a quoted cell write a quote as \"\")");
    csv_fails("a\n\nb\"c\n", 0,
              "t.csv:3: a quote inside an unquoted cell (quote the whole cell and write the "
              "quote as \"\")");
    tc_csv c;
    char err[128];
    assert_int_equal(tc_csv_parse("t.csv", "a\0b", 3, 0, &c, err, sizeof err), TC_ERR_PARSE);
    assert_string_equal(err, "t.csv: contains a NUL byte: not a text file");
    assert_int_equal(tc_csv_parse(NULL, "a", 1, 0, &c, err, sizeof err), TC_ERR_INVALID);
}

/* One record a line, limits, and what went wrong for callers that word
 * their own messages (the GPU spec table). */
static void csv_reader_keeps_lines_and_limits(void **state)
{
    (void)state;
    static const char text[] = "a,b\r\nc\rd,\"e\rf\"\n\"g\nh\"\n";
    tc_csv_reader r;
    tc_csv_reader_init(&r, "s.csv", text, sizeof text - 1, TC_CSV_LINES);
    const tc_csv_row *row;
    char err[256];
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_OK);
    assert_int_equal(row->n, 2);
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_OK);
    assert_int_equal(row->line, 2);
    assert_string_equal(row->fields[0], "c\rd"); /* a lone CR is a byte of the cell */
    assert_string_equal(row->fields[1], "e\rf");
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_ERR_PARSE);
    assert_null(row);
    assert_int_equal(r.problem, TC_CSV_UNCLOSED_QUOTE);
    assert_int_equal(r.problem_line, 3);
    assert_int_equal(r.problem_cell, 0);
    assert_string_equal(err, "s.csv:3: a quoted cell does not end on its line");
    tc_csv_reader_free(&r);

    tc_csv_reader_init(&r, "s.csv", "a,b,c\nabcdef\n", 13, 0);
    r.max_cells = 2;
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(r.problem, TC_CSV_TOO_MANY_CELLS);
    assert_int_equal(r.problem_cell, 2);
    assert_string_equal(err, "s.csv:1: more than 2 cells in a row");
    tc_csv_reader_free(&r);

    tc_csv_reader_init(&r, "s.csv", "ab\n\"abc\"\n", 9, 0);
    r.max_cell_len = 2;
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_OK);
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(r.problem, TC_CSV_CELL_TOO_LONG);
    assert_string_equal(err, "s.csv:2: a cell longer than 2 bytes");
    tc_csv_reader_free(&r);

    static const char nul[] = "a\n# x\0y\n";
    tc_csv_reader_init(&r, "s.csv", nul, sizeof nul - 1, TC_CSV_COMMENTS);
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_OK);
    assert_int_equal(tc_csv_next(&r, &row, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(r.problem, TC_CSV_NUL_BYTE); /* even on a comment line */
    assert_string_equal(err, "s.csv:2: a NUL byte: not a text file");
    tc_csv_reader_free(&r);
    tc_csv_reader_free(NULL);
}

static void csv_header_keys_find_columns(void **state)
{
    (void)state;
    char key[64];
    tc_csv_header_key("# of Calls", key, sizeof key);
    assert_string_equal(key, "of_calls");
    tc_csv_header_key("Self CUDA %", key, sizeof key);
    assert_string_equal(key, "self_cuda_pct");
    char *cells[] = {"Name", "Self CPU %", "# of Calls"};
    tc_csv_row h = {cells, 3, 1};
    static const char *const calls[] = {"calls", "of_calls", NULL};
    static const char *const none[] = {"device", NULL};
    assert_int_equal(tc_csv_column(&h, calls), 2);
    assert_int_equal(tc_csv_column(&h, none), -1);
}

/* ---- INI schema ---- */

typedef struct demo_number {
    int valid;
    double value;
    int line;
} demo_number;

typedef struct demo_range {
    double low, high;
    int line;
} demo_range;

typedef struct demo {
    char label[8];
    demo_number price, count;
    int answer, answer_line;
    demo_range days;
} demo;

/* "LOW..HIGH" into the demo_range at dest. */
static int read_range(const tc_ini_key *k, const char *value, int line, void *dest, char *why,
                      size_t whylen)
{
    (void)k;
    demo_range *r = dest;
    char low[64];
    const char *dots = strstr(value, "..");
    size_t n = dots ? (size_t)(dots - value) : 0;
    if (dots && n < sizeof low) {
        memcpy(low, value, n);
        low[n] = '\0';
        if (tc_parse_plain_number(low, &r->low) == 0 &&
            tc_parse_plain_number(dots + 2, &r->high) == 0) {
            r->line = line;
            return 0;
        }
    }
    snprintf(why, whylen, "'%s' is not a range", value);
    return -1;
}

static const char *const yes_no[] = {"yes", "no", NULL};

static const tc_ini_key demo_keys[] = {
    {.section = "money",
     .key = "price",
     .kind = TC_INI_NUMBER,
     .flags = TC_INI_REQUIRED,
     TC_INI_NUMBER_AT(demo, price),
     .max = 100,
     .expect = "currency units 0..100, e.g. 5"},
    {.section = "money",
     .key = "count",
     .kind = TC_INI_NUMBER,
     .flags = TC_INI_REQUIRED | TC_INI_ABOVE_MIN | TC_INI_WHOLE,
     TC_INI_NUMBER_AT(demo, count),
     .max = 10,
     .expect = "a whole number > 0, e.g. 3"},
    {.section = "other",
     .key = "answer",
     .kind = TC_INI_ANSWER,
     .at = offsetof(demo, answer),
     .line_at = offsetof(demo, answer_line),
     .words = yes_no,
     .expect = "yes or no"},
    {.section = "other",
     .key = "days",
     .kind = TC_INI_CUSTOM,
     .at = offsetof(demo, days),
     .parse = read_range,
     .expect = "LOW..HIGH"},
    {.section = "",
     .key = "label",
     .kind = TC_INI_STRING,
     .at = offsetof(demo, label),
     .size = sizeof(((demo *)0)->label),
     .expect = "e.g. USD"},
};

static tc_err demo_read(const char *text, tc_ini_dialect dialect, int strict, demo *d, char *err,
                        size_t errlen)
{
    tc_ini_schema schema = {demo_keys, sizeof demo_keys / sizeof demo_keys[0], dialect, strict,
                            NULL};
    memset(d, 0, sizeof *d);
    tc_ini ini;
    tc_ini_init(&ini, "d.ini", text, strlen(text), err, errlen);
    return tc_ini_read(&ini, &schema, d);
}

static void ini_schema_stores_every_kind(void **state)
{
    (void)state;
    demo d;
    char err[512] = "";
    assert_int_equal(demo_read("label = EUR\n[money]\nprice = 2.5\ncount = 3\n[other]\n"
                               "answer = no\ndays = 1..4\n",
                               TC_INI_PARENS, 1, &d, err, sizeof err),
                     TC_OK);
    assert_string_equal(d.label, "EUR");
    assert_true(d.price.valid && d.price.value == 2.5 && d.price.line == 3);
    assert_true(d.count.valid && d.count.value == 3 && d.count.line == 4);
    assert_int_equal(d.answer, 2); /* the index of "no", + 1 */
    assert_int_equal(d.answer_line, 6);
    assert_true(d.days.low == 1 && d.days.high == 4 && d.days.line == 7);
}

/* Reads text in a dialect, expecting TC_ERR_PARSE and exactly `want`. */
static void ini_fails(const char *text, tc_ini_dialect dialect, int strict, const char *want)
{
    demo d;
    char err[512] = "";
    assert_int_equal(demo_read(text, dialect, strict, &d, err, sizeof err), TC_ERR_PARSE);
    assert_string_equal(err, want);
}

#define MONEY "[money]\nprice = 1\ncount = 2\n"

/* inih reads a line into a 200-byte buffer and took the rest of a longer
 * one as a line of its own: a long comment ending in "count = 9" set count.
 * A long comment is read whole and ignored; a longer setting is refused. */
static void ini_long_lines_are_read_whole_or_refused(void **state)
{
    (void)state;
    char text[1200], comment[400];
    memset(comment, 'x', sizeof comment);
    comment[0] = ';';
    snprintf(comment + 300, sizeof comment - 300, "count = 9");
    snprintf(text, sizeof text, "[money]\nprice = 1\n%s\ncount = 2\n%s\n", comment, comment);
    demo d;
    char err[512] = "";
    assert_int_equal(demo_read(text, TC_INI_PARENS, 1, &d, err, sizeof err), TC_OK);
    assert_true(d.count.valid && d.count.value == 2 && d.count.line == 4);
    /* a line that just fits, then the next line keeps its number */
    char fits[400];
    snprintf(fits, sizeof fits, "[money]\n;%0197d\nprice = x\n", 0);
    assert_int_equal(demo_read(fits, TC_INI_PARENS, 1, &d, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "d.ini:3: [money] price"));
    char label[400];
    memset(label, 'y', sizeof label);
    memcpy(label, "label = ", 8);
    label[300] = '\0';
    snprintf(text, sizeof text, "%s\n" MONEY, label);
    ini_fails(text, TC_INI_PARENS, 0,
              "d.ini:1: the line is too long (at most 198 bytes; a comment may be longer)");
}

static void ini_schema_says_what_and_where(void **state)
{
    (void)state;
    /* A bad value names FILE:LINE, the key and the expected form. */
    ini_fails(MONEY "[other]\ndays = 3\n", TC_INI_PARENS, 0,
              "d.ini:5: [other] days: '3' is not a range (expected LOW..HIGH)");
    ini_fails("[money]\nprice = 1 EUR\n", TC_INI_PARENS, 0,
              "d.ini:2: [money] price: '1 EUR' is not a number (expected currency units 0..100, "
              "e.g. 5)");
    ini_fails("[money]\nprice = -1\n", TC_INI_PARENS, 0,
              "d.ini:2: [money] price: '-1' is not a number (expected currency units 0..100, "
              "e.g. 5)");
    ini_fails("[money]\nprice = -1\n", TC_INI_SEMICOLON, 0,
              "d.ini:2: [money] price: '-1' is negative; expected currency units 0..100, e.g. 5");
    ini_fails("[money]\n\ncount = 2.5\n", TC_INI_SEMICOLON, 0,
              "d.ini:3: [money] count: 2.5 is out of range; expected a whole number > 0, e.g. 3");
    ini_fails("[money]\ncount = 0\n", TC_INI_PARENS, 0,
              "d.ini:2: [money] count: 0 is out of range (expected a whole number > 0, e.g. 3)");
    ini_fails("[other]\nanswer = maybe\n", TC_INI_SEMICOLON, 0,
              "d.ini:2: [other] answer: 'maybe' is not an answer; expected yes or no");
    ini_fails(
        "label = TOOLONGLABEL\n", TC_INI_PARENS, 0,
        "d.ini:1: label: 'TOOLONGLABEL' is not a label; expected 1 to 7 characters, e.g. USD");
    /* A key given twice. */
    ini_fails("[money]\nprice = 1\nprice = 2\n", TC_INI_PARENS, 0,
              "d.ini:3: [money] price: given twice");
    ini_fails("[money]\nprice = 1\nprice = 2\n", TC_INI_SEMICOLON, 0,
              "d.ini:3: [money] price: given twice; expected it once");
    /* Unknown keys and sections. */
    ini_fails("[money]\ncolour = red\n", TC_INI_PARENS, 0,
              "d.ini:2: [money] unknown key 'colour' (known: price, count)");
    ini_fails("[money]\ncolour = red\n", TC_INI_SEMICOLON, 0,
              "d.ini:2: [money] colour: unknown key; expected one of: price, count");
    ini_fails("colour = red\n", TC_INI_PARENS, 0,
              "d.ini:1: 'colour' outside a section; expected only 'label' before the first "
              "[section]");
    ini_fails(MONEY "[extra]\n\nx = 1\n", TC_INI_PARENS, 0,
              "d.ini:6: unknown section [extra] (known: [money], [other])");
    ini_fails(MONEY "[extra]\n\nx = 1\n", TC_INI_PARENS, 1,
              "d.ini:4: unknown section [extra] (known: [money], [other])");
    /* Missing required keys, at their section's line or without one. */
    ini_fails("label = X\n\n[money]\nprice = 1\n", TC_INI_SEMICOLON, 0,
              "d.ini:3: [money] count: missing; expected a whole number > 0, e.g. 3");
    ini_fails("[other]\nanswer = yes\n", TC_INI_SEMICOLON, 0,
              "d.ini: [money] price: missing, and so is the [money] section (and 1 more "
              "required key); expected currency units 0..100, e.g. 5");
    /* A syntax error is inih's, at its line; the first error wins. */
    ini_fails("[money]\nprice\n", TC_INI_PARENS, 0,
              "d.ini:2: not a '[section]' or 'key = value' line");
    ini_fails("[money]\nprice = x\ncount = y\n", TC_INI_PARENS, 0,
              "d.ini:2: [money] price: 'x' is not a number (expected currency units 0..100, "
              "e.g. 5)");
}

/* A rule across keys runs after each key is stored. */
static int no_answer_with_days(tc_ini *ini, const tc_ini_key *k, void *out)
{
    const demo *d = out;
    if (d->answer && d->days.line)
        return tc_ini_fail(ini, "[%s] %s: answer or days, not both", k->section, k->key);
    return 1;
}

static void ini_schema_runs_the_check(void **state)
{
    (void)state;
    tc_ini_schema schema = {demo_keys, sizeof demo_keys / sizeof demo_keys[0], TC_INI_PARENS, 0,
                            no_answer_with_days};
    static const char text[] = MONEY "[other]\ndays = 1..2\nanswer = yes\n";
    demo d = {0};
    char err[256];
    tc_ini ini;
    tc_ini_init(&ini, "d.ini", text, sizeof text - 1, err, sizeof err);
    assert_int_equal(tc_ini_read(&ini, &schema, &d), TC_ERR_PARSE);
    assert_string_equal(err, "d.ini:6: [other] answer: answer or days, not both");
    tc_ini_init(&ini, "d.ini", text, sizeof text - 1, err, sizeof err);
    assert_int_equal(tc_ini_read(&ini, NULL, &d), TC_ERR_INVALID);
}

/* One redactor for every URL printed or stored: the userinfo password and
 * the values of credential query parameters, any case, every one of them. */
static void urls_lose_their_secrets(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"http://u:PASS@127.0.0.1:9400/metrics?token=SECRET",
         "http://u:***@127.0.0.1:9400/metrics?token=***"},
        {"https://h/m?page=2&api_key=abc&Sig=xyz;X-Auth=1#frag",
         "https://h/m?page=2&api_key=***&Sig=***;X-Auth=***#frag"},
        {"http://h/m?key=1&monkey=2&secret=3&password=4&auth=5&access_token=6",
         "http://h/m?key=***&monkey=2&secret=***&password=***&auth=***&access_token=***"},
        {"postgresql://tc:pw@db/runs?sslmode=require",
         "postgresql://tc:***@db/runs?sslmode=require"},
        {"http://user@h/x?q=1", "http://user@h/x?q=1"}, /* a user alone is no secret */
        {"--telemetry=http://a:b@h/m,http://c:d@i/m?token=t",
         "--telemetry=http://a:***@h/m,http://c:***@i/m?token=***"},
        {"host=db password=hunter2 user=tc", "host=db password=*** user=tc"},
        {"Why is the sky blue?", "Why is the sky blue?"},
        {"", ""},
    };
    char out[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_redact_url(cases[i].in, out, sizeof out);
        if (strcmp(out, cases[i].out) != 0)
            fail_msg("'%s' -> '%s', expected '%s'", cases[i].in, out, cases[i].out);
    }
    char small[12];
    tc_redact_url("http://u:PASS@host/", small, sizeof small); /* cut, never past the buffer */
    assert_string_equal(small, "http://u:**");
    assert_true(tc_redact_secret_param("client_secret", 13));
    assert_false(tc_redact_secret_param("keys", 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(urls_lose_their_secrets),
        cmocka_unit_test(strerror_covers_every_code),
        cmocka_unit_test(fail_formats_detail_and_returns_code),
        cmocka_unit_test(buf_grows_and_resets),
        cmocka_unit_test(json_escaping_round_trips),
        cmocka_unit_test(rfc3339_is_utc_with_nanoseconds),
        cmocka_unit_test(rng_is_reproducible_and_uniform),
        cmocka_unit_test(plain_numbers_are_strict),
        cmocka_unit_test(whole_files_are_read_with_a_limit),
        cmocka_unit_test(outfiles_replace_whole_or_not_at_all),
        cmocka_unit_test(csv_reads_quotes_crlf_comments_and_lines),
        cmocka_unit_test(csv_errors_name_their_line),
        cmocka_unit_test(csv_reader_keeps_lines_and_limits),
        cmocka_unit_test(csv_header_keys_find_columns),
        cmocka_unit_test(ini_schema_stores_every_kind),
        cmocka_unit_test(ini_schema_says_what_and_where),
        cmocka_unit_test(ini_long_lines_are_read_whole_or_refused),
        cmocka_unit_test(ini_schema_runs_the_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
