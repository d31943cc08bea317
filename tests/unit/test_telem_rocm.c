/* Unit tests of the ROCm SMI backend against fake librocm_smi64 builds
 * (tests/fake/fake_rocm*.c), loaded through the real dlopen path. The fake
 * reads its scripted values from FAKE_RSMI_* at rsmi_init. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "telemetry/telem_rocm.h"

#define FAKE TC_FAKE_LIB_DIR "/libfake_rocm.so"
#define FAKE_MIN TC_FAKE_LIB_DIR "/libfake_rocm_min.so"
#define GIB (1024LL * 1024 * 1024)

static const char *const fake_vars[] = {
    "FAKE_RSMI_INIT",          "FAKE_RSMI_DEVICES",       "FAKE_RSMI_ENERGY_COUNTS",
    "FAKE_RSMI_RESOLUTION",    "FAKE_RSMI_POWER_UW",      "FAKE_RSMI_SOCKET_POWER_UW",
    "FAKE_RSMI_NOT_SUPPORTED", "FAKE_RSMI_NO_PERMISSION", "FAKE_RSMI_FAIL",
};

/* A scratch directory for opt_root trees; state is its path. */
static int setup(void **state)
{
    for (size_t i = 0; i < sizeof fake_vars / sizeof fake_vars[0]; i++)
        unsetenv(fake_vars[i]);
    char *dir = strdup("/tmp/tc_rocm_XXXXXX");
    if (!dir || !mkdtemp(dir))
        return -1;
    *state = dir;
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
    int rc = system(cmd);
    free(*state);
    return rc == 0 ? 0 : -1;
}

/* Creates root/rel (and its folders) holding text. */
static void put(const char *root, const char *rel, const char *text)
{
    char cmd[512], path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Opens the backend; fails the test unless init succeeds. */
static void *open_cfg(const tc_telem_config *cfg)
{
    void *st = NULL;
    char err[512] = "";
    tc_err rc = tc_telem_rocm.init(cfg, &st, err, sizeof err);
    if (rc != TC_OK)
        fail_msg("init: %s: %s", tc_strerror(rc), err);
    assert_non_null(st);
    return st;
}

static void *open_ok(const char *lib)
{
    tc_telem_config cfg = {.rocm_lib = lib, .opt_root = "/nonexistent"};
    return open_cfg(&cfg);
}

static tc_err open_fails(const tc_telem_config *cfg, char *err, size_t errlen)
{
    void *st = (void *)cfg; /* init must reset it */
    err[0] = '\0';
    tc_err rc = tc_telem_rocm.init(cfg, &st, err, errlen);
    assert_null(st);
    return rc;
}

static tc_telem_sample sample_ok(void *st, int dev)
{
    tc_telem_sample s;
    tc_err rc = tc_telem_rocm.sample(st, dev, &s);
    if (rc != TC_OK)
        fail_msg("sample: %s: %s", tc_strerror(rc), tc_telem_rocm.last_error(st));
    assert_true(s.mono_ns > 0);
    return s;
}

/* Whether the loader finds a real ROCm SMI by name: then the default
 * search cannot be pointed at a fixture. */
static int real_rocm_installed(void)
{
    void *dl = dlopen("librocm_smi64.so", RTLD_NOW | RTLD_LOCAL);
    if (!dl)
        dl = dlopen("librocm_smi64.so.1", RTLD_NOW | RTLD_LOCAL);
    if (dl)
        dlclose(dl);
    return dl != NULL;
}

static void lists_devices_and_describes_them(void **state)
{
    const char *root = *state;
    put(root, "opt/rocm/.info/version", "6.1.2-119\n");
    setenv("FAKE_RSMI_DEVICES", "2", 1);
    tc_telem_config cfg = {.rocm_lib = FAKE, .opt_root = root};
    void *st = open_cfg(&cfg);
    assert_string_equal(tc_telem_rocm.name, "rocm");
    assert_int_equal(tc_telem_rocm.device_count(st), 2);
    tc_telem_device d;
    tc_telem_rocm.device_info(st, 1, &d);
    assert_int_equal(d.kind, TC_TELEM_GPU);
    assert_string_equal(d.name, "AMD Instinct MI300X");
    assert_string_equal(d.id, "0000:0d:00.0");
    assert_string_equal(d.driver, "6.8.5");
    assert_string_equal(d.runtime, "ROCm 6.1.2");
    assert_string_equal(d.energy_what, "GPU energy counter");
    tc_telem_rocm.device_info(st, 0, &d);
    assert_string_equal(d.id, "0000:0c:00.0");
    tc_telem_rocm.device_info(st, 2, &d); /* out of range: all empty */
    assert_string_equal(d.name, "");
    tc_telem_rocm.device_info(st, -1, &d);
    assert_string_equal(d.id, "");
    tc_telem_sample s;
    assert_int_equal(tc_telem_rocm.sample(st, 2, &s), TC_ERR_INVALID);
    assert_int_equal(s.valid, 0);
    assert_string_equal(tc_telem_rocm.last_error(st), "");
    tc_telem_rocm.shutdown(st);
    tc_telem_rocm.shutdown(NULL);
    assert_int_equal(tc_telem_rocm.device_count(NULL), 0);
    assert_string_equal(tc_telem_rocm.last_error(NULL), "");
}

static void no_version_file_no_runtime(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_NOT_SUPPORTED", "name,pci,driver", 1);
    void *st = open_ok(FAKE);
    tc_telem_device d;
    tc_telem_rocm.device_info(st, 0, &d);
    assert_string_equal(d.name, "AMD GPU 0");
    assert_string_equal(d.id, "rocm:0");
    assert_string_equal(d.driver, "");
    assert_string_equal(d.runtime, "");
    tc_telem_rocm.shutdown(st);
}

static void samples_every_field(void **state)
{
    (void)state;
    void *st = open_ok(FAKE);
    tc_telem_sample s = sample_ok(st, 0);
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_ENERGY | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM |
                                  TC_TF_MEM_USED | TC_TF_MEM_TOTAL | TC_TF_TEMP | TC_TF_TEMP_HOT |
                                  TC_TF_POWER_LIMIT);
    assert_int_equal(s.power_mw, 245000); /* the averaged reading */
    assert_int_equal(s.power_instant, 0);
    assert_int_equal(s.power_limit_mw, 750000);
    assert_int_equal(s.energy_uj, 15300000); /* 1000000 counts x 15.3 µJ */
    assert_int_equal(s.util_pct, 73);
    assert_int_equal(s.mem_util_pct, 31);
    assert_int_equal(s.mem_used_bytes, 24 * GIB);
    assert_int_equal(s.mem_total_bytes, 192 * GIB);
    assert_int_equal(s.temp_mc, 51500);
    assert_int_equal(s.temp_hot_mc, 68250);
    assert_int_equal(s.clock_sm_mhz, 0); /* clocks are not read */
    assert_string_equal(tc_telem_rocm.last_error(st), "");
    tc_telem_rocm.shutdown(st);
}

static void power_rounds_to_milliwatts(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_POWER_UW", "245123501", 1);
    void *st = open_ok(FAKE);
    assert_int_equal(sample_ok(st, 0).power_mw, 245124);
    tc_telem_rocm.shutdown(st);
}

static void energy_is_count_times_resolution(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_ENERGY_COUNTS", "1000,2000,123456789,18446744073709", 1);
    void *st = open_ok(FAKE);
    /* 15.3 as the library means it, not the float 15.30000019...: that
     * would give 23 µJ too much on the third, 3.5 J on the last. */
    uint64_t want[] = {15300, 30600, 1888888872, 282235184327748};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sample_ok(st, 0).energy_uj, want[i]);
    tc_telem_rocm.shutdown(st);

    /* A resolution that is no short decimal is taken as the float it is:
     * 2^-16 J = 15.2587890625 µJ, exact in a float. */
    setenv("FAKE_RSMI_ENERGY_COUNTS", "1000000,65536", 1);
    setenv("FAKE_RSMI_RESOLUTION", "15.2587890625", 1);
    st = open_ok(FAKE);
    assert_int_equal(sample_ok(st, 0).energy_uj, 15258789);
    tc_telem_rocm.shutdown(st);

    setenv("FAKE_RSMI_ENERGY_COUNTS", "7", 1);
    setenv("FAKE_RSMI_RESOLUTION", "1.5", 1);
    st = open_ok(FAKE);
    assert_int_equal(sample_ok(st, 0).energy_uj, 11); /* 10.5 rounds half up */
    tc_telem_rocm.shutdown(st);
}

static void counter_reset_keeps_accumulating(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_ENERGY_COUNTS", "1000,3000,500,700,100", 1);
    setenv("FAKE_RSMI_RESOLUTION", "1", 1);
    setenv("FAKE_RSMI_DEVICES", "2", 1);
    void *st = open_ok(FAKE);
    uint64_t want[] = {1000, 3000, 3500, 3700, 3800, 3800};
    for (int i = 0; i < 6; i++) {
        tc_telem_sample s = sample_ok(st, 0);
        assert_true(s.valid & TC_TF_ENERGY);
        assert_int_equal(s.energy_uj, want[i]);
    }
    assert_int_equal(sample_ok(st, 1).energy_uj, 1000); /* each GPU its own counter */
    assert_int_equal(sample_ok(st, 1).energy_uj, 3000);
    tc_telem_rocm.shutdown(st);
}

static void unsupported_fields_are_invalid(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_NOT_SUPPORTED", "energy,temp_junction,busy,memory_total,power_cap", 1);
    void *st = open_ok(FAKE);
    tc_telem_sample s = sample_ok(st, 0);
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_UTIL_MEM | TC_TF_MEM_USED | TC_TF_TEMP);
    assert_int_equal(s.energy_uj, 0);
    assert_int_equal(s.temp_hot_mc, 0);
    assert_int_equal(s.util_pct, 0);
    assert_int_equal(s.mem_total_bytes, 0);
    assert_int_equal(s.power_limit_mw, 0);
    assert_int_equal(s.temp_mc, 51500);
    assert_string_equal(tc_telem_rocm.last_error(st), ""); /* not supported is no error */
    tc_telem_rocm.shutdown(st);

    setenv("FAKE_RSMI_NOT_SUPPORTED", "temp_edge,mem_busy,memory_usage", 1);
    st = open_ok(FAKE);
    s = sample_ok(st, 0);
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_ENERGY | TC_TF_UTIL_GPU | TC_TF_MEM_TOTAL |
                                  TC_TF_TEMP_HOT | TC_TF_POWER_LIMIT);
    tc_telem_rocm.shutdown(st);
}

/* MI300: no average power, the current socket power instead. */
static void power_without_average(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_NOT_SUPPORTED", "power_ave", 1);
    void *st = open_ok(FAKE);
    for (int i = 0; i < 2; i++) { /* the second time without asking for the average */
        tc_telem_sample s = sample_ok(st, 0);
        assert_true(s.valid & TC_TF_POWER);
        assert_int_equal(s.power_mw, 301000);
        assert_int_equal(s.power_instant, 1);
    }
    tc_telem_rocm.shutdown(st);

    setenv("FAKE_RSMI_NOT_SUPPORTED", "power_ave,power", 1);
    st = open_ok(FAKE);
    tc_telem_sample s = sample_ok(st, 0);
    assert_false(s.valid & TC_TF_POWER);
    assert_int_equal(s.power_mw, 0);
    assert_true(s.valid & TC_TF_POWER_LIMIT);
    tc_telem_rocm.shutdown(st);
}

static void permission_and_failures_are_noted(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_NO_PERMISSION", "energy", 1);
    void *st = open_ok(FAKE);
    tc_telem_sample s = sample_ok(st, 0);
    assert_false(s.valid & TC_TF_ENERGY);
    assert_int_equal(s.energy_uj, 0);
    assert_true(s.valid & TC_TF_POWER);
    const char *why = tc_telem_rocm.last_error(st);
    assert_non_null(strstr(why, "AMD Instinct MI300X 0000:0c:00.0: rsmi_dev_energy_count_get: "
                                "RSMI_STATUS_PERMISSION"));
    assert_non_null(strstr(why, "sudo usermod -a -G render,video $USER"));
    tc_telem_rocm.shutdown(st);

    unsetenv("FAKE_RSMI_NO_PERMISSION");
    setenv("FAKE_RSMI_FAIL", "temp_edge", 1);
    st = open_ok(FAKE);
    s = sample_ok(st, 0);
    assert_false(s.valid & TC_TF_TEMP);
    assert_true(s.valid & TC_TF_TEMP_HOT);
    assert_string_equal(tc_telem_rocm.last_error(st),
                        "AMD Instinct MI300X 0000:0c:00.0: rsmi_dev_temp_metric_get(EDGE): "
                        "RSMI_STATUS_INTERNAL_EXCEPTION: An internal exception was caught");
    tc_telem_rocm.shutdown(st);
}

static void bad_resolution_is_invalid(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_RESOLUTION", "0", 1);
    void *st = open_ok(FAKE);
    tc_telem_sample s = sample_ok(st, 0);
    assert_false(s.valid & TC_TF_ENERGY);
    assert_non_null(strstr(tc_telem_rocm.last_error(st), "resolution 0 uJ makes no sense"));
    tc_telem_rocm.shutdown(st);
}

/* Only the required entry points: names from the index, nothing to read. */
static void minimal_library(void **state)
{
    (void)state;
    void *st = open_ok(FAKE_MIN);
    tc_telem_device d;
    tc_telem_rocm.device_info(st, 0, &d);
    assert_string_equal(d.name, "AMD GPU 0");
    assert_string_equal(d.id, "rocm:0");
    assert_string_equal(d.driver, "");
    tc_telem_sample s = sample_ok(st, 0);
    assert_int_equal(s.valid, 0);
    assert_string_equal(tc_telem_rocm.last_error(st), "");
    tc_telem_rocm.shutdown(st);
}

static void library_missing(void **state)
{
    const char *root = *state;
    char err[512];
    tc_telem_config cfg = {.rocm_lib = TC_FAKE_LIB_DIR "/librocm_smi64-absent.so"};
    assert_int_equal(open_fails(&cfg, err, sizeof err), TC_ERR_NOTFOUND);
    assert_string_equal(err, TC_FAKE_LIB_DIR "/librocm_smi64-absent.so not found: ROCm SMI is "
                                             "not installed (or use the amdgpu sysfs backend)");
    if (real_rocm_installed())
        skip();
    tc_telem_config dflt = {.opt_root = root}; /* nothing under root/opt/rocm/lib */
    assert_int_equal(open_fails(&dflt, err, sizeof err), TC_ERR_NOTFOUND);
    assert_string_equal(err, "librocm_smi64.so not found: ROCm SMI is not installed (or use "
                             "the amdgpu sysfs backend)");
}

/* Without rocm_lib, a ROCm outside the loader's path is found under
 * <opt_root>/opt/rocm/lib. */
static void default_search_finds_opt_rocm(void **state)
{
    const char *root = *state;
    if (real_rocm_installed())
        skip();
    char dir[256], link[300];
    snprintf(dir, sizeof dir, "%s/opt/rocm/lib", root);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(link, sizeof link, "%s/librocm_smi64.so", dir);
    assert_int_equal(symlink(FAKE, link), 0);
    put(root, "opt/rocm/.info/version", "6.3.0\n");
    tc_telem_config cfg = {.opt_root = root};
    void *st = open_cfg(&cfg);
    tc_telem_device d;
    tc_telem_rocm.device_info(st, 0, &d);
    assert_string_equal(d.runtime, "ROCm 6.3.0");
    tc_telem_rocm.shutdown(st);
}

static void init_fails_with_the_fix(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_INIT", "8", 1);
    char err[512];
    tc_telem_config cfg = {.rocm_lib = FAKE};
    assert_int_equal(open_fails(&cfg, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "librocm_smi64: rsmi_init: RSMI_STATUS_INIT_ERROR: "));
    assert_non_null(strstr(err, "/dev/kfd"));
    assert_non_null(strstr(err, "sudo usermod -a -G render,video $USER"));
    setenv("FAKE_RSMI_INIT", "99", 1); /* a status the library has no text for */
    assert_int_equal(open_fails(&cfg, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "rsmi_init: ROCm SMI status 99 ("));
}

static void required_symbol_missing(void **state)
{
    (void)state;
    char err[512];
    tc_telem_config cfg = {.rocm_lib = TC_FAKE_LIB_DIR "/libfake_nvml.so"};
    assert_int_equal(open_fails(&cfg, err, sizeof err), TC_ERR_NOTFOUND);
    assert_string_equal(err,
                        "librocm_smi64: symbol rsmi_init not found (not ROCm SMI, or too old?)");
}

static void no_gpu(void **state)
{
    (void)state;
    setenv("FAKE_RSMI_DEVICES", "0", 1);
    char err[512];
    tc_telem_config cfg = {.rocm_lib = FAKE};
    assert_int_equal(open_fails(&cfg, err, sizeof err), TC_ERR_NOTFOUND);
    assert_string_equal(err, "librocm_smi64: ROCm SMI sees no GPU");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(lists_devices_and_describes_them),
        T(no_version_file_no_runtime),
        T(samples_every_field),
        T(power_rounds_to_milliwatts),
        T(energy_is_count_times_resolution),
        T(counter_reset_keeps_accumulating),
        T(unsupported_fields_are_invalid),
        T(power_without_average),
        T(permission_and_failures_are_noted),
        T(bad_resolution_is_invalid),
        T(minimal_library),
        T(library_missing),
        T(default_search_finds_opt_rocm),
        T(init_fails_with_the_fix),
        T(required_symbol_missing),
        T(no_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
