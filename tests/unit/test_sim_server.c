/* Unit tests of the simulator server's set-up: bad configurations are
 * refused with a reason, and nothing is left half-made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sim_server.h"

static void too_many_models_are_refused(void **state)
{
    (void)state;
    tc_sim_config cfg;
    tc_sim_config_defaults(&cfg);
    cfg.n_models = TC_SIM_MAX_MODELS + 1;
    for (int i = 0; i < TC_SIM_MAX_MODELS; i++)
        cfg.models[i] = "m";
    tc_sim_server *s = (tc_sim_server *)1;
    char err[128];
    assert_int_equal(tc_sim_server_new(&cfg, &s, err, sizeof err), TC_ERR_INVALID);
    assert_null(s);
    assert_non_null(strstr(err, "at most 32 models"));
}

static void bad_timing_and_truth_path_are_refused(void **state)
{
    (void)state;
    tc_sim_config cfg;
    tc_sim_server *s;
    char err[256];
    tc_sim_config_defaults(&cfg);
    cfg.timing.decode_tps = 0;
    assert_int_equal(tc_sim_server_new(&cfg, &s, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "--decode-tps"));
    tc_sim_config_defaults(&cfg);
    cfg.truth_path = "/nonexistent-dir/truth.jsonl";
    assert_int_equal(tc_sim_server_new(&cfg, &s, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent-dir/truth.jsonl"));
    tc_sim_server_free(NULL);
}

static void a_free_port_is_bound_and_released(void **state)
{
    (void)state;
    tc_sim_config cfg;
    tc_sim_server *s;
    char err[256];
    tc_sim_config_defaults(&cfg);
    cfg.handle_signals = 0;
    assert_int_equal(tc_sim_server_new(&cfg, &s, err, sizeof err), TC_OK);
    assert_true(tc_sim_server_port(s) > 0);
    tc_sim_stats st;
    tc_sim_server_stats(s, &st);
    assert_int_equal(st.requests, 0);
    assert_int_equal(st.accept_pauses, 0);
    assert_int_equal(st.accept_errno, 0);
    tc_sim_server_free(s);
}

static void an_address_that_does_not_resolve_is_named(void **state)
{
    (void)state;
    tc_sim_config cfg;
    tc_sim_server *s = (tc_sim_server *)1;
    char err[256];
    tc_sim_config_defaults(&cfg);
    cfg.handle_signals = 0;
    cfg.host = "256.0.0.1";
    assert_int_equal(tc_sim_server_new(&cfg, &s, err, sizeof err), TC_ERR_NET);
    assert_null(s);
    assert_non_null(strstr(err, "cannot listen on 256.0.0.1:0"));
}

/* A port in use on ::1: the message writes the address as [::1]:PORT. */
static void an_ipv6_address_is_bracketed_in_errors(void **state)
{
    (void)state;
    tc_sim_config cfg;
    tc_sim_server *first, *second = (tc_sim_server *)1;
    char err[256], want[64];
    tc_sim_config_defaults(&cfg);
    cfg.handle_signals = 0;
    cfg.host = "::1";
    if (tc_sim_server_new(&cfg, &first, err, sizeof err) != TC_OK)
        skip(); /* no IPv6 loopback here */
    cfg.port = tc_sim_server_port(first);
    assert_int_equal(tc_sim_server_new(&cfg, &second, err, sizeof err), TC_ERR_NET);
    assert_null(second);
    snprintf(want, sizeof want, "cannot listen on [::1]:%u: ", (unsigned)cfg.port);
    assert_non_null(strstr(err, want));
    assert_non_null(strstr(err, "--listen [::1]:0"));
    tc_sim_server_free(first);
}

/* Without streams in flight there is nothing to write, with or without a
 * truth file; the server is still whole afterwards. */
static void inflight_truth_without_streams_writes_nothing(void **state)
{
    (void)state;
    tc_sim_config cfg;
    tc_sim_server *s;
    char err[256], path[] = "/tmp/truecost-truth-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    tc_sim_config_defaults(&cfg);
    cfg.handle_signals = 0;
    assert_int_equal(tc_sim_server_new(&cfg, &s, err, sizeof err), TC_OK);
    assert_int_equal(tc_sim_server_write_inflight_truth(s, "crashed"), 0);
    tc_sim_server_free(s);
    cfg.truth_path = path;
    assert_int_equal(tc_sim_server_new(&cfg, &s, err, sizeof err), TC_OK);
    assert_int_equal(tc_sim_server_write_inflight_truth(s, "crashed"), 0);
    tc_sim_server_free(s);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fgetc(f), EOF);
    fclose(f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(too_many_models_are_refused),
        cmocka_unit_test(bad_timing_and_truth_path_are_refused),
        cmocka_unit_test(a_free_port_is_bound_and_released),
        cmocka_unit_test(an_address_that_does_not_resolve_is_named),
        cmocka_unit_test(an_ipv6_address_is_bracketed_in_errors),
        cmocka_unit_test(inflight_truth_without_streams_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
