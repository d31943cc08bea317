/* Unit tests of src/core: errors, buffer and JSON escaping, time, RNG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "core/tc_buf.h"
#include "core/tc_error.h"
#include "core/tc_file.h"
#include "core/tc_number.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strerror_covers_every_code),
        cmocka_unit_test(fail_formats_detail_and_returns_code),
        cmocka_unit_test(buf_grows_and_resets),
        cmocka_unit_test(json_escaping_round_trips),
        cmocka_unit_test(rfc3339_is_utc_with_nanoseconds),
        cmocka_unit_test(rng_is_reproducible_and_uniform),
        cmocka_unit_test(plain_numbers_are_strict),
        cmocka_unit_test(whole_files_are_read_with_a_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
