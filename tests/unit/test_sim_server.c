/* Unit tests of the simulator server's set-up: bad configurations are
 * refused with a reason, and nothing is left half-made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

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
    tc_sim_server_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(too_many_models_are_refused),
        cmocka_unit_test(bad_timing_and_truth_path_are_refused),
        cmocka_unit_test(a_free_port_is_bound_and_released),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
