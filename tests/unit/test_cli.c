/* Unit tests of the CLI helpers: suggestions, numbers, listen addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void suggests_close_commands(void **state)
{
    (void)state;
    const char *names[] = {"sim", "run", "runs", "show", "export", "help"};
    assert_int_equal(tc_cli_edit_distance("sim", "sim"), 0);
    assert_int_equal(tc_cli_edit_distance("smi", "sim"), 2);
    assert_int_equal(tc_cli_edit_distance("", "abc"), 3);
    assert_string_equal(tc_cli_suggest("sm", names, 6), "sim");
    assert_string_equal(tc_cli_suggest("expotr", names, 6), "export");
    assert_string_equal(tc_cli_suggest("sho", names, 6), "show");
    assert_null(tc_cli_suggest("completely-different", names, 6));
}

static void parses_numbers_strictly(void **state)
{
    (void)state;
    double d;
    long long n;
    assert_int_equal(tc_cli_double("--x", "2.5", 0, 10, &d), 0);
    assert_true(d == 2.5);
    assert_int_equal(tc_cli_double("--x", "2.5ms", 0, 10, &d), -1);
    assert_int_equal(tc_cli_double("--x", "", 0, 10, &d), -1);
    assert_int_equal(tc_cli_double("--x", "11", 0, 10, &d), -1);
    assert_int_equal(tc_cli_double("--x", "nan", 0, 10, &d), -1);
    assert_int_equal(tc_cli_int("--n", "42", 1, 100, &n), 0);
    assert_int_equal(n, 42);
    assert_int_equal(tc_cli_int("--n", "4.2", 1, 100, &n), -1);
    assert_int_equal(tc_cli_int("--n", "0", 1, 100, &n), -1);
    assert_int_equal(tc_cli_int("--n", "99999999999999999999", 1, 100, &n), -1);
}

static void parses_listen_addresses(void **state)
{
    (void)state;
    char *owned;
    const char *host;
    uint16_t port;
    assert_int_equal(tc_cli_listen("127.0.0.1:8080", &owned, &host, &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 8080);
    free(owned);
    assert_int_equal(tc_cli_listen("[::1]:0", &owned, &host, &port), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 0);
    free(owned);
    assert_int_equal(tc_cli_listen(":9000", &owned, &host, &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_null(owned);
    assert_int_equal(tc_cli_listen("9001", &owned, &host, &port), 0);
    assert_int_equal(port, 9001);
    assert_int_equal(tc_cli_listen("localhost:99999", &owned, &host, &port), -1);
    assert_null(owned);
    assert_int_equal(tc_cli_listen("localhost:http", &owned, &host, &port), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(suggests_close_commands),
        cmocka_unit_test(parses_numbers_strictly),
        cmocka_unit_test(parses_listen_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
