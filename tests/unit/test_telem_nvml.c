/* Unit tests of the NVML backend against fake libnvidia-ml builds
 * (tests/fake/fake_nvml*.c), loaded through the real dlopen path. The fake
 * reads its scripted values from FAKE_NVML_* at nvmlInit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "telemetry/telem_nvml.h"

#define FAKE TC_FAKE_LIB_DIR "/libfake_nvml.so"
#define FAKE_OLD TC_FAKE_LIB_DIR "/libfake_nvml_old.so"
#define GIB (1024LL * 1024 * 1024)
#define MIB (1024LL * 1024)

static const char *const fake_vars[] = {
    "FAKE_NVML_INIT",          "FAKE_NVML_DEVICES",
    "FAKE_NVML_POWER_MW",      "FAKE_NVML_POWER_INSTANT_MW",
    "FAKE_NVML_ENERGY_MJ",     "FAKE_NVML_ENERGY_RATE_MW",
    "FAKE_NVML_LOST_AFTER",    "FAKE_NVML_NOT_SUPPORTED",
    "FAKE_NVML_NO_PERMISSION",
};

static int clear_env(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fake_vars / sizeof fake_vars[0]; i++)
        unsetenv(fake_vars[i]);
    return 0;
}

/* Opens the backend on `lib`; fails the test unless init succeeds. */
static void *open_ok(const char *lib)
{
    tc_telem_config cfg = {.nvml_lib = lib};
    void *st = NULL;
    char err[512] = "";
    tc_err rc = tc_telem_nvml.init(&cfg, &st, err, sizeof err);
    if (rc != TC_OK)
        fail_msg("init %s: %s: %s", lib, tc_strerror(rc), err);
    assert_non_null(st);
    return st;
}

static tc_err open_fails(const char *lib, char *err, size_t errlen)
{
    tc_telem_config cfg = {.nvml_lib = lib};
    void *st = (void *)&cfg; /* init must reset it */
    tc_err rc = tc_telem_nvml.init(&cfg, &st, err, errlen);
    assert_null(st);
    return rc;
}

static tc_telem_sample sample_ok(void *st, int dev)
{
    tc_telem_sample s;
    tc_err rc = tc_telem_nvml.sample(st, dev, &s);
    if (rc != TC_OK)
        fail_msg("sample: %s: %s", tc_strerror(rc), tc_telem_nvml.last_error(st));
    assert_true(s.mono_ns > 0);
    return s;
}

/* The fake's memory v2 really rejects a bare 2 in .version: the test of
 * the backend's v2 read below proves it sends the right word. */
static void fake_rejects_bare_version_word(void **state)
{
    (void)state;
    struct {
        unsigned version;
        unsigned long long total, reserved, free, used;
    } m = {.version = 2};
    void *dl = dlopen(FAKE, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(dl);
    int (*init)(void) = (int (*)(void))dlsym(dl, "nvmlInit_v2");
    int (*handle)(unsigned, void **) =
        (int (*)(unsigned, void **))dlsym(dl, "nvmlDeviceGetHandleByIndex_v2");
    int (*mem)(void *, void *) = (int (*)(void *, void *))dlsym(dl, "nvmlDeviceGetMemoryInfo_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(dl, "nvmlShutdown");
    assert_true(init && handle && mem && shutdown);
    void *h = NULL;
    assert_int_equal(init(), 0);
    assert_int_equal(handle(0, &h), 0);
    assert_int_equal(mem(h, &m), 25);
    m.version = (unsigned)(sizeof m | (2u << 24));
    assert_int_equal(mem(h, &m), 0);
    assert_int_equal(m.used, 10 * GIB);
    shutdown();
    dlclose(dl);
}

static void lists_devices_and_describes_them(void **state)
{
    (void)state;
    setenv("FAKE_NVML_DEVICES", "2", 1);
    void *st = open_ok(FAKE);
    assert_int_equal(tc_telem_nvml.device_count(st), 2);
    assert_string_equal(tc_telem_nvml.name, "nvml");
    tc_telem_device d;
    tc_telem_nvml.device_info(st, 1, &d);
    assert_int_equal(d.kind, TC_TELEM_GPU);
    assert_string_equal(d.name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(d.id, "00000000:11:00.0");
    assert_string_equal(d.driver, "550.54.15");
    assert_string_equal(d.runtime, "CUDA 12.4");
    assert_string_equal(d.energy_what, "GPU board energy");
    tc_telem_nvml.device_info(st, 0, &d);
    assert_string_equal(d.id, "00000000:10:00.0");
    tc_telem_nvml.device_info(st, 2, &d); /* out of range: all empty */
    assert_string_equal(d.name, "");
    tc_telem_sample s;
    assert_int_equal(tc_telem_nvml.sample(st, 2, &s), TC_ERR_INVALID);
    assert_int_equal(s.valid, 0);
    assert_string_equal(tc_telem_nvml.last_error(st), "");
    tc_telem_nvml.shutdown(st);
    tc_telem_nvml.shutdown(NULL);
}

static void samples_every_field(void **state)
{
    (void)state;
    void *st = open_ok(FAKE);
    tc_telem_sample s = sample_ok(st, 0);
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_ENERGY | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM |
                                  TC_TF_MEM_USED | TC_TF_MEM_TOTAL | TC_TF_TEMP | TC_TF_CLOCK_SM |
                                  TC_TF_CLOCK_MEM | TC_TF_POWER_LIMIT);
    assert_int_equal(s.power_mw, 312345); /* field 186, not the 1-s average */
    assert_int_equal(s.power_instant, 1);
    assert_int_equal(s.power_limit_mw, 700000);
    assert_int_equal(s.util_pct, 87);
    assert_int_equal(s.mem_util_pct, 42);
    assert_int_equal(s.mem_used_bytes, 10 * GIB); /* v2: reserved not counted */
    assert_int_equal(s.mem_total_bytes, 80 * GIB);
    assert_int_equal(s.temp_mc, 65000);
    assert_int_equal(s.clock_sm_mhz, 1980);
    assert_int_equal(s.clock_mem_mhz, 2619);
    assert_int_equal(s.energy_uj, 1000000ULL * 1000); /* the counter's start, in µJ */
    assert_string_equal(tc_telem_nvml.last_error(st), "");
    tc_telem_nvml.shutdown(st);
}

static void old_driver_falls_back(void **state)
{
    (void)state;
    setenv("FAKE_NVML_POWER_MW", "123456", 1);
    void *st = open_ok(FAKE_OLD);
    tc_telem_device d;
    tc_telem_nvml.device_info(st, 0, &d);
    assert_string_equal(d.id, "0000:10:00.0"); /* v1's legacy id */
    assert_string_equal(d.runtime, "CUDA 12.4");
    tc_telem_sample s = sample_ok(st, 0);
    assert_true(s.valid & TC_TF_POWER);
    assert_int_equal(s.power_mw, 123456);
    assert_int_equal(s.power_instant, 0);
    assert_false(s.valid & TC_TF_ENERGY); /* no counter on this driver */
    assert_true(s.valid & TC_TF_MEM_USED);
    assert_int_equal(s.mem_used_bytes, 10 * GIB + 512 * MIB); /* v1 counts reserved */
    assert_true(s.valid & TC_TF_TEMP);
    tc_telem_nvml.shutdown(st);
}

static void unsupported_fields_are_invalid(void **state)
{
    (void)state;
    setenv("FAKE_NVML_NOT_SUPPORTED", "temperature,clock_mem,power_instant,energy", 1);
    setenv("FAKE_NVML_NO_PERMISSION", "util", 1);
    void *st = open_ok(FAKE);
    for (int i = 0; i < 2; i++) { /* the second time, without asking for field 186 */
        tc_telem_sample s = sample_ok(st, 0);
        assert_false(s.valid & (TC_TF_TEMP | TC_TF_CLOCK_MEM | TC_TF_ENERGY | TC_TF_UTIL_GPU |
                                TC_TF_UTIL_MEM | TC_TF_TEMP_HOT));
        assert_int_equal(s.temp_mc, 0);
        assert_true(s.valid & TC_TF_CLOCK_SM);
        assert_true(s.valid & TC_TF_POWER);
        assert_int_equal(s.power_mw, 250000);
        assert_int_equal(s.power_instant, 0);
    }
    assert_non_null(strstr(tc_telem_nvml.last_error(st), "Insufficient Permissions"));
    tc_telem_nvml.shutdown(st);

    setenv("FAKE_NVML_NOT_SUPPORTED", "power_instant,power,memory", 1);
    unsetenv("FAKE_NVML_NO_PERMISSION");
    st = open_ok(FAKE);
    tc_telem_sample s = sample_ok(st, 0);
    assert_false(s.valid & (TC_TF_POWER | TC_TF_MEM_USED | TC_TF_MEM_TOTAL));
    assert_true(s.valid & TC_TF_ENERGY);
    assert_string_equal(tc_telem_nvml.last_error(st), "");
    tc_telem_nvml.shutdown(st);
}

static void energy_counter_is_exact(void **state)
{
    (void)state;
    setenv("FAKE_NVML_ENERGY_MJ", "5000,5600,9250", 1);
    setenv("FAKE_NVML_DEVICES", "2", 1);
    void *st = open_ok(FAKE);
    uint64_t want[] = {5000000, 5600000, 9250000, 9250000};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sample_ok(st, 0).energy_uj, want[i]);
    assert_int_equal(sample_ok(st, 1).energy_uj, 5000000); /* each GPU its own counter */
    tc_telem_nvml.shutdown(st);
}

static void energy_counter_follows_the_clock(void **state)
{
    (void)state;
    setenv("FAKE_NVML_ENERGY_RATE_MW", "300000", 1); /* 300 W */
    void *st = open_ok(FAKE);
    tc_telem_sample a = sample_ok(st, 0);
    nanosleep(&(struct timespec){0, 200000000}, NULL);
    tc_telem_sample b = sample_ok(st, 0);
    double seconds = (double)(b.mono_ns - a.mono_ns) / 1e9;
    double joules = (double)(b.energy_uj - a.energy_uj) / 1e6;
    assert_true(seconds >= 0.2);
    /* The fake reads its clock a few µs after the backend stamps mono_ns. */
    assert_true(joules > 300 * seconds * 0.95 - 0.01 && joules < 300 * seconds * 1.05 + 0.01);
    tc_telem_nvml.shutdown(st);
}

static void gpu_lost_mid_run(void **state)
{
    (void)state;
    setenv("FAKE_NVML_LOST_AFTER", "2", 1);
    void *st = open_ok(FAKE);
    sample_ok(st, 0);
    sample_ok(st, 0);
    tc_telem_sample s;
    assert_int_equal(tc_telem_nvml.sample(st, 0, &s), TC_ERR_IO);
    assert_int_equal(s.valid, 0);
    const char *why = tc_telem_nvml.last_error(st);
    assert_non_null(strstr(why, "GPU lost"));
    assert_non_null(strstr(why, "00000000:10:00.0"));
    assert_int_equal(tc_telem_nvml.sample(st, 0, &s), TC_ERR_IO); /* and stays lost */
    assert_int_equal(s.valid, 0);
    tc_telem_nvml.shutdown(st);
}

static void library_missing(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(open_fails(TC_FAKE_LIB_DIR "/libnvidia-ml-absent.so.1", err, sizeof err),
                     TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "libnvidia-ml-absent.so.1 not found: no NVIDIA driver"));
    assert_non_null(strstr(err, "lsmod | grep nvidia"));
    /* a file that is there but is no library is not "no driver" */
    assert_int_equal(open_fails("/etc/passwd", err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "/etc/passwd is not a library that loads ("));
    assert_null(strstr(err, "no NVIDIA driver"));
}

static void driver_not_loaded(void **state)
{
    (void)state;
    setenv("FAKE_NVML_INIT", "9", 1);
    char err[512];
    assert_int_equal(open_fails(FAKE, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "nvmlInit: Driver Not Loaded"));
    assert_non_null(strstr(err, "lsmod | grep nvidia"));
    setenv("FAKE_NVML_INIT", "4", 1); /* any other failure is an I/O error */
    assert_int_equal(open_fails(FAKE, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "Insufficient Permissions"));
}

static void required_symbol_missing(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(open_fails(TC_FAKE_LIB_DIR "/libfake_nvml_nohandle.so", err, sizeof err),
                     TC_ERR_NOTFOUND);
    assert_string_equal(err, "libnvidia-ml: symbol nvmlDeviceGetHandleByIndex_v2 not found "
                             "(driver too old?)");
}

static void no_gpu(void **state)
{
    (void)state;
    setenv("FAKE_NVML_DEVICES", "0", 1);
    char err[512];
    assert_int_equal(open_fails(FAKE, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "no GPU"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, clear_env, clear_env)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(fake_rejects_bare_version_word),
        T(lists_devices_and_describes_them),
        T(samples_every_field),
        T(old_driver_falls_back),
        T(unsupported_fields_are_invalid),
        T(energy_counter_is_exact),
        T(energy_counter_follows_the_clock),
        T(gpu_lost_mid_run),
        T(library_missing),
        T(driver_not_loaded),
        T(required_symbol_missing),
        T(no_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
