/* Unit tests of remote telemetry: the exposition reader (tests/fixtures/
 * expo: each exporter's documented format, and malformed text), the
 * mapping of truecost's agent, DCGM, AMD's device-metrics-exporter and
 * node_exporter to devices and samples, the agent's exposition read back,
 * and the remote backend against a live agent in this process (a token
 * refused, a scrape that fails costing one sample). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/agent_expo.h"
#include "telemetry/telem_expo.h"
#include "telemetry/telem_remote.h"
#include "telemetry/telem_set.h"

#include "slurp.h"

#define FIX TC_FIXTURES_DIR "/expo/"
#define MIB 1048576LL

static char *slurp(const char *name, size_t *len)
{
    return slurp_in(FIX, name, len);
}

/* Maps a fixture; returns the device count. */
static int map_file(const char *name, tc_remote_dev *devs, int max)
{
    size_t len;
    char *text = slurp(name, &len), err[256];
    tc_expo e;
    assert_int_equal(tc_expo_parse(text, len, &e, err, sizeof err), TC_OK);
    int n = tc_remote_map(&e, devs, max);
    tc_expo_free(&e);
    free(text);
    return n;
}

static void test_parse_lines(void **state)
{
    (void)state;
    const char *text = "# HELP x y\n# TYPE a gauge\n\n"
                       "a 1\n"
                       "b{l=\"v\"} -2.5e3 1700000000000\n"
                       "c { x = \"q\\\"uo\\\\te\\nnl\" , y=\"\",} +Inf\r\n"
                       "d:sub NaN\n"
                       "e{} 7";
    tc_expo e;
    char err[256];
    assert_int_equal(tc_expo_parse(text, strlen(text), &e, err, sizeof err), TC_OK);
    assert_int_equal(e.n, 5);
    assert_string_equal(e.samples[0].name, "a");
    assert_true(e.samples[0].value == 1 && e.samples[0].n_labels == 0);
    assert_string_equal(tc_expo_label_of(&e.samples[1], "l"), "v");
    assert_true(e.samples[1].value == -2500);
    assert_string_equal(tc_expo_label_of(&e.samples[2], "x"), "q\"uo\\te\nnl");
    assert_string_equal(tc_expo_label_of(&e.samples[2], "y"), "");
    assert_null(tc_expo_label_of(&e.samples[2], "z"));
    assert_true(isinf(e.samples[2].value) && e.samples[2].value > 0);
    assert_true(isnan(e.samples[3].value));
    assert_string_equal(e.samples[4].name, "e");
    tc_expo_free(&e);
}

static void expect_bad(const char *text, const char *why)
{
    tc_expo e;
    char err[256];
    assert_int_equal(tc_expo_parse(text, strlen(text), &e, err, sizeof err), TC_ERR_PARSE);
    if (!strstr(err, why))
        fail_msg("'%s': got '%s', expected '%s'", text, err, why);
    assert_int_equal(e.n, 0);
    tc_expo_free(&e);
}

static void test_parse_malformed(void **state)
{
    (void)state;
    expect_bad("a 1\n9bad 1\n", "line 2: expected a metric name");
    expect_bad("a\n", "expected a value");
    expect_bad("a one\n", "not a number");
    expect_bad("a{l=v} 1\n", "double quotes");
    expect_bad("a{l=\"v} 1\n", "not closed");
    expect_bad("a{l=\"v\" m=\"w\"} 1\n", "expected ',' or '}'");
    expect_bad("a{l=\"\\t\"} 1\n", "unknown escape");
    expect_bad("a{l=\"1\",l=\"2\"} 1\n", "twice");
    expect_bad("a 1 12x\n", "timestamp");
    expect_bad("a 1 2 3\n", "after the timestamp");
    expect_bad("a{=\"v\"} 1\n", "label name");
    size_t len;
    char *text = slurp("malformed.prom", &len);
    tc_expo e;
    char err[256];
    assert_int_equal(tc_expo_parse(text, len, &e, err, sizeof err), TC_ERR_PARSE);
    tc_expo_free(&e);
    free(text);
}

static void test_map_dcgm(void **state)
{
    (void)state;
    tc_remote_dev d[8];
    assert_int_equal(map_file("dcgm.prom", d, 8), 2);
    assert_string_equal(d[0].source, "dcgm");
    assert_string_equal(d[0].key, "0");
    assert_string_equal(d[0].info.name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(d[0].info.id, "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52");
    assert_string_equal(d[0].info.energy_what, "GPU board energy");
    const tc_telem_sample *s = &d[0].s;
    assert_int_equal(s->valid, TC_TF_POWER | TC_TF_ENERGY | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM |
                                   TC_TF_MEM_USED | TC_TF_TEMP);
    assert_int_equal(s->power_mw, 412718);
    assert_int_equal(s->energy_uj, 2718281828000ULL); /* mJ */
    assert_int_equal(s->util_pct, 97);
    assert_int_equal(s->mem_util_pct, 41);
    assert_int_equal(s->mem_used_bytes, 71234 * MIB);
    assert_int_equal(s->temp_mc, 54000);
    assert_int_equal(d[1].s.power_mw, 88102);
    assert_int_equal(d[1].s.util_pct, 0); /* 0 is a reading here, and valid */
    assert_true(d[1].s.valid & TC_TF_UTIL_GPU);
}

static void test_map_amd(void **state)
{
    (void)state;
    tc_remote_dev d[8];
    assert_int_equal(map_file("amd.prom", d, 8), 1);
    assert_string_equal(d[0].source, "amd");
    assert_string_equal(d[0].info.name, "AMD Instinct MI300X OAM");
    assert_string_equal(d[0].info.id, "ccff74a1-0000-1000-80e0-c6d49f5b0d86");
    const tc_telem_sample *s = &d[0].s;
    assert_int_equal(s->power_mw, 652000); /* gpu_power_usage, not the package power */
    assert_int_equal(s->energy_uj, 9876543210000ULL);
    assert_int_equal(s->util_pct, 88);
    assert_int_equal(s->mem_util_pct, 35);
    assert_int_equal(s->mem_used_bytes, 150000 * MIB);
    assert_int_equal(s->mem_total_bytes, 196592 * MIB);
    assert_int_equal(s->temp_hot_mc, 71000);
    assert_false(s->valid & TC_TF_TEMP); /* an MI300X has no edge sensor: not available */
    /* a prefixed name, and the package power when gpu_power_usage is absent */
    const char *text =
        "amd_gpu_package_power{gpu_id=\"3\"} 500\namd_gpu_gfx_activity{gpu_id=\"3\"} 5\n";
    tc_expo e;
    char err[256];
    assert_int_equal(tc_expo_parse(text, strlen(text), &e, err, sizeof err), TC_OK);
    assert_int_equal(tc_remote_map(&e, d, 8), 1);
    assert_int_equal(d[0].s.power_mw, 500000);
    assert_int_equal(d[0].s.util_pct, 5);
    assert_string_equal(d[0].info.name, "GPU 3");
    tc_expo_free(&e);
}

static void test_map_node_and_agent(void **state)
{
    (void)state;
    tc_remote_dev d[8];
    assert_int_equal(map_file("node.prom", d, 8), 2); /* core and others are not packages */
    assert_int_equal(d[0].info.kind, TC_TELEM_CPU);
    assert_string_equal(d[0].info.name, "package-0");
    assert_string_equal(d[0].info.id, "/sys/class/powercap/intel-rapl:0");
    assert_string_equal(d[0].info.energy_what, "CPU package energy");
    assert_int_equal(d[0].s.valid, TC_TF_ENERGY);
    assert_int_equal(d[0].s.energy_uj, 118063690960ULL);
    assert_int_equal(d[1].s.energy_uj, 97544250000ULL);

    assert_int_equal(map_file("agent.prom", d, 8), 2);
    assert_string_equal(d[0].source, "truecost");
    assert_int_equal(d[0].s.power_mw, 312345);
    assert_int_equal(d[0].s.energy_uj, 1449973000ULL);
    assert_int_equal(d[0].s.util_pct, 87);
    assert_int_equal(d[0].s.mem_used_bytes, 10240 * MIB);
    assert_int_equal(d[0].s.mem_total_bytes, 81920 * MIB);
    assert_int_equal(d[0].s.temp_mc, 65000);
    assert_int_equal(d[1].info.kind, TC_TELEM_CPU);
    assert_string_equal(d[1].info.name, "package-0");
    assert_int_equal(d[1].s.energy_uj, 5000500000ULL);
}

static void test_map_not_available(void **state)
{
    (void)state;
    const char *text = "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} NaN\n"
                       "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} -1\n"
                       "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} +Inf\n"
                       "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} -5\n"
                       "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 80\n";
    tc_expo e;
    char err[256];
    tc_remote_dev d[2];
    assert_int_equal(tc_expo_parse(text, strlen(text), &e, err, sizeof err), TC_OK);
    assert_int_equal(tc_remote_map(&e, d, 2), 1);
    assert_int_equal(d[0].s.valid, TC_TF_TEMP); /* never a 0 for what is missing */
    assert_int_equal(d[0].s.temp_mc, -5000);    /* the first line wins; below 0 C is a reading */
    assert_int_equal(d[0].s.power_mw, 0);
    tc_expo_free(&e);
}

/* What the agent writes reads back as the same readings. */
static void test_agent_expo_round_trip(void **state)
{
    (void)state;
    tc_telem_device gpu = {.kind = TC_TELEM_GPU, .name = "Odd \"name\"\\x", .id = "0000:01:00.0"};
    tc_telem_device cpu = {.kind = TC_TELEM_CPU, .name = "package-0", .id = "intel-rapl:0"};
    tc_telem_sample gs = {.valid = TC_TF_POWER | TC_TF_ENERGY | TC_TF_MEM_TOTAL,
                          .power_mw = 250500,
                          .energy_uj = 123456789012ULL,
                          .mem_total_bytes = 80 * 1024 * MIB};
    tc_telem_sample cs = {.valid = TC_TF_ENERGY, .energy_uj = 42};
    tc_agent_reading r[] = {{&gpu, "nvml", &gs}, {&cpu, "rapl", &cs}};
    tc_buf b = {0};
    tc_agent_expo_write(&b, r, 2);
    assert_int_equal(tc_buf_status(&b), TC_OK);
    assert_null(strstr(b.data, "truecost_gpu_temperature_celsius")); /* missing: left out */
    assert_non_null(strstr(b.data, "vendor=\"nvidia\""));
    assert_non_null(strstr(b.data, "truecost_build_info{version="));
    tc_expo e;
    char err[256];
    assert_int_equal(tc_expo_parse(b.data, b.len, &e, err, sizeof err), TC_OK);
    tc_remote_dev d[4];
    assert_int_equal(tc_remote_map(&e, d, 4), 2);
    assert_string_equal(d[0].info.name, "Odd \"name\"\\x");
    assert_int_equal(d[0].s.valid, gs.valid);
    assert_int_equal(d[0].s.power_mw, 250500);
    assert_int_equal(d[0].s.energy_uj, 123456789012ULL);
    assert_int_equal(d[0].s.mem_total_bytes, gs.mem_total_bytes);
    assert_int_equal(d[1].s.energy_uj, 42);
    tc_expo_free(&e);
    tc_buf_free(&b);
}

static void test_loopback(void **state)
{
    (void)state;
    assert_true(tc_agent_is_loopback("127.0.0.1"));
    assert_true(tc_agent_is_loopback("127.1.2.3"));
    assert_true(tc_agent_is_loopback("::1"));
    assert_true(tc_agent_is_loopback("localhost"));
    assert_false(tc_agent_is_loopback("0.0.0.0"));
    assert_false(tc_agent_is_loopback("::"));
    assert_false(tc_agent_is_loopback("10.0.0.1"));
    assert_false(tc_agent_is_loopback("gpu-box"));
}

static void *serve(void *arg)
{
    tc_agent_run(arg);
    return NULL;
}

/* A live agent on the fake NVML: the remote set finds its GPU; a wrong
 * token finds nothing; once the agent is gone a round costs one sample. */
static void test_remote_live_agent(void **state)
{
    (void)state;
    setenv("FAKE_NVML_DEVICES", "1", 1);
    setenv("FAKE_NVML_ENERGY_RATE_MW", "300000", 1);
    char notes[2048], err[512];
    tc_agent_config cfg = {.host = "127.0.0.1",
                           .interval_ms = 50,
                           .token = "s3cret",
                           .telemetry = "nvml",
                           .telem = {.nvml_lib = TC_FAKE_LIB_DIR "/libfake_nvml.so"}};
    tc_agent *ag = NULL;
    assert_int_equal(tc_agent_new(&cfg, &ag, notes, sizeof notes, err, sizeof err), TC_OK);
    assert_int_equal(tc_agent_devices(ag), 1);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, serve, ag), 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/metrics", (unsigned)tc_agent_port(ag));
    const char *urls[] = {url};

    tc_telem_set *set = NULL;
    assert_int_equal(tc_telem_set_open_remote(urls, 1, "wrong", 1000, &set, notes, sizeof notes,
                                              err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_telem_set_count(set), 0);
    assert_non_null(strstr(notes, "HTTP 401"));
    assert_null(strstr(notes, "s3cret"));
    tc_telem_set_close(set);

    assert_int_equal(tc_telem_set_open_remote(urls, 1, "s3cret", 1000, &set, notes, sizeof notes,
                                              err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_telem_set_count(set), 1);
    assert_string_equal(tc_telem_set_backend(set, 0), "remote");
    assert_string_equal(tc_telem_set_device(set, 0)->name, "NVIDIA H100 80GB HBM3");
    tc_telem_sample s;
    assert_int_equal(tc_telem_set_sample(set, 0, &s), TC_OK);
    assert_true(s.valid & TC_TF_ENERGY);
    assert_true(s.valid & TC_TF_POWER);
    assert_true(s.mono_ns > 0);

    tc_agent_stop(ag);
    pthread_join(th, NULL);
    tc_agent_free(ag); /* the port closes: the next scrape fails */
    assert_int_equal(tc_telem_set_sample(set, 0, &s), TC_OK);
    assert_int_equal(s.valid, 0);
    assert_true(s.mono_ns > 0);
    tc_telem_set_close(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_lines),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_map_dcgm),
        cmocka_unit_test(test_map_amd),
        cmocka_unit_test(test_map_node_and_agent),
        cmocka_unit_test(test_map_not_available),
        cmocka_unit_test(test_agent_expo_round_trip),
        cmocka_unit_test(test_loopback),
        cmocka_unit_test(test_remote_live_agent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
