/* Unit tests of the SSE framer: events must come out the same however the
 * bytes are sliced, with every line ending, comment and field form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bench/bench_sse.h"

/* Each event is logged as "<data>|" so a whole stream compares as one
 * string. */
typedef struct sink {
    tc_buf log;
    int n;
    int fail_at; /* return TC_ERR_NOMEM on this event (1-based); 0 = never */
} sink;

static tc_err on_event(void *ctx, const char *data, size_t len)
{
    sink *s = ctx;
    assert_int_equal(data[len], '\0');
    tc_buf_append(&s->log, data, len);
    tc_buf_puts(&s->log, "|");
    return ++s->n == s->fail_at ? TC_ERR_NOMEM : TC_OK;
}

/* Every form the format allows, in one stream. */
static const char MIXED[] = "\xEF\xBB\xBF: a comment first, after a byte order mark\n"
                            "data: {\"a\":1}\n\n"
                            "event: message\r\nid: 7\r\nretry: 1000\r\ndata:no space\r\n\r\n"
                            "data: line one\rdata: line two\r\r"
                            ": keep-alive\n\n"
                            "data\n\n"
                            "data:  two spaces\nunknown: field\ndata: \n\n"
                            "event: ping\n\n"
                            "data: [DONE]\n\n";
static const char MIXED_EVENTS[] =
    "{\"a\":1}|no space|line one\nline two||" /* "data" alone: an empty event */
    " two spaces\n|[DONE]|";

static void run(const char *const *parts, const size_t *lens, size_t n, const char *want)
{
    sink s = {0};
    tc_sse sse;
    char err[128];
    tc_sse_init(&sse, 0, on_event, &s);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tc_sse_feed(&sse, parts[i], lens[i], err, sizeof err), TC_OK);
    assert_int_equal(tc_sse_finish(&sse, err, sizeof err), TC_OK);
    assert_string_equal(s.log.data ? s.log.data : "", want);
    tc_sse_free(&sse);
    tc_buf_free(&s.log);
}

static void whole_stream(void **state)
{
    (void)state;
    const char *parts[] = {MIXED};
    size_t lens[] = {sizeof MIXED - 1};
    run(parts, lens, 1, MIXED_EVENTS);
}

static void split_at_every_byte(void **state)
{
    (void)state;
    size_t n = sizeof MIXED - 1;
    for (size_t k = 0; k <= n; k++) {
        const char *parts[] = {MIXED, MIXED + k};
        size_t lens[] = {k, n - k};
        run(parts, lens, 2, MIXED_EVENTS);
    }
}

static void split_at_every_pair_of_bytes(void **state)
{
    (void)state;
    size_t n = sizeof MIXED - 1;
    for (size_t a = 0; a <= n; a++) {
        for (size_t b = a; b <= n; b++) {
            const char *parts[] = {MIXED, MIXED + a, MIXED + b};
            size_t lens[] = {a, b - a, n - b};
            run(parts, lens, 3, MIXED_EVENTS);
        }
    }
}

static void one_byte_at_a_time(void **state)
{
    (void)state;
    size_t n = sizeof MIXED - 1;
    const char *parts[sizeof MIXED];
    size_t lens[sizeof MIXED];
    for (size_t i = 0; i < n; i++) {
        parts[i] = MIXED + i;
        lens[i] = 1;
    }
    run(parts, lens, n, MIXED_EVENTS);
}

static void crlf_split_between_cr_and_lf(void **state)
{
    (void)state;
    /* The "\n" after a "\r" that ended a slice must not end another line:
     * that would be a blank line and dispatch early. */
    const char *parts[] = {"data: a\r", "\ndata: b\r", "\n\r", "\n"};
    size_t lens[] = {8, 10, 2, 1};
    run(parts, lens, 4, "a\nb|");
}

static void finish_dispatches_whole_lines_only(void **state)
{
    (void)state;
    const char *parts[] = {"data: one\n\ndata: two\n"};
    size_t lens[] = {strlen(parts[0])};
    run(parts, lens, 1, "one|two|"); /* the blank line never came */
    parts[0] = "data: one\n\ndata: tw";
    lens[0] = strlen(parts[0]);
    run(parts, lens, 1, "one|"); /* an unfinished line is dropped */
}

static void oversized_event_is_an_error(void **state)
{
    (void)state;
    sink s = {0};
    tc_sse sse;
    char err[128] = "";
    tc_sse_init(&sse, 16, on_event, &s);
    const char *ok = "data: 0123456789\n\n";
    assert_int_equal(tc_sse_feed(&sse, ok, strlen(ok), err, sizeof err), TC_OK);
    /* Each line fits; joined, the data does not. */
    const char *big = "data: 0123456789\ndata: 0123456789\n\n";
    assert_int_equal(tc_sse_feed(&sse, big, strlen(big), err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "larger than 16 bytes"));
    assert_int_equal(tc_sse_feed(&sse, ok, strlen(ok), err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(tc_sse_finish(&sse, err, sizeof err), TC_ERR_PARSE);
    assert_string_equal(s.log.data, "0123456789|");

    /* A line without an end (here a comment) is bounded too, however it
     * is sliced. */
    tc_sse_reset(&sse);
    assert_int_equal(tc_sse_feed(&sse, ": 0123456789", 12, err, sizeof err), TC_OK);
    assert_int_equal(tc_sse_feed(&sse, "0123456789", 10, err, sizeof err), TC_ERR_PARSE);
    tc_sse_free(&sse);
    tc_buf_free(&s.log);
}

static void callback_error_stops_the_feed(void **state)
{
    (void)state;
    sink s = {.fail_at = 2};
    tc_sse sse;
    tc_sse_init(&sse, 0, on_event, &s);
    const char *in = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
    assert_int_equal(tc_sse_feed(&sse, in, strlen(in), NULL, 0), TC_ERR_NOMEM);
    assert_string_equal(s.log.data, "1|2|");
    tc_sse_free(&sse);
    tc_buf_free(&s.log);
}

static void reset_forgets_a_partial_event(void **state)
{
    (void)state;
    sink s = {0};
    tc_sse sse;
    tc_sse_init(&sse, 0, on_event, &s);
    assert_int_equal(tc_sse_feed(&sse, "data: old\ndata: par", 19, NULL, 0), TC_OK);
    tc_sse_reset(&sse);
    assert_int_equal(tc_sse_feed(&sse, "data: new\n\n", 11, NULL, 0), TC_OK);
    assert_string_equal(s.log.data, "new|");
    tc_sse_free(&sse);
    tc_sse_free(NULL);
    tc_buf_free(&s.log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_stream),
        cmocka_unit_test(split_at_every_byte),
        cmocka_unit_test(split_at_every_pair_of_bytes),
        cmocka_unit_test(one_byte_at_a_time),
        cmocka_unit_test(crlf_split_between_cr_and_lf),
        cmocka_unit_test(finish_dispatches_whole_lines_only),
        cmocka_unit_test(oversized_event_is_an_error),
        cmocka_unit_test(callback_error_stops_the_feed),
        cmocka_unit_test(reset_forgets_a_partial_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
