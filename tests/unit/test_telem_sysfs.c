/* Unit tests of the sysfs telemetry backends (RAPL, amdgpu) and their
 * shared helpers, against fixture trees under tests/fixtures/sysfs. Tests
 * that change counters copy a fixture into a mkdtemp directory first; the
 * sample clock is injected so power and intervals are exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tc_root.h"
#include "telemetry/telem.h"
#include "telemetry/telem_set.h"
#include "telemetry/telem_sysfs.h"
#include "report/report_monitor.h"

#define FIX TC_FIXTURES_DIR "/sysfs/"
#define PC "/class/powercap/"
#define CARD0 "/class/drm/card0/device/"
#define HWMON3 CARD0 "hwmon/hwmon3/"

/* ---- helpers ---- */

static int64_t fake_now;

static int64_t fake_clock(void)
{
    return fake_now;
}

typedef struct tmp {
    char dir[64];
} tmp;

static int setup(void **state)
{
    tmp *t = calloc(1, sizeof *t);
    assert_non_null(t);
    strcpy(t->dir, "/tmp/tc_telem_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    fake_now = 0;
    tc_telem_sysfs_set_clock(fake_clock);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    tmp *t = *state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwX %s && rm -rf %s", t->dir, t->dir);
    assert_int_equal(system(cmd), 0);
    free(t);
    tc_telem_sysfs_set_clock(NULL);
    return 0;
}

/* Copies fixture tree `name` into t->dir. */
static void copy_fixture(const tmp *t, const char *name)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp -R '%s%s/.' '%s'", FIX, name, t->dir);
    assert_int_equal(system(cmd), 0);
}

static void put(const tmp *t, const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s%s", t->dir, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void drop(const tmp *t, const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s%s", t->dir, rel);
    assert_int_equal(unlink(path), 0);
}

static void *init_ok(const tc_telem_backend *b, const char *root)
{
    tc_telem_config cfg = {.sysfs_root = root, .opt_root = root};
    char err[512] = "";
    void *st = NULL;
    tc_err e = b->init(&cfg, &st, err, sizeof err);
    if (e != TC_OK)
        fail_msg("%s init: %s (%s)", b->name, tc_strerror(e), err);
    assert_non_null(st);
    return st;
}

/* Samples dev at fake time now_ns and checks it succeeded. */
static tc_telem_sample sample_at(const tc_telem_backend *b, void *st, int dev, int64_t now_ns)
{
    fake_now = now_ns;
    tc_telem_sample s;
    assert_int_equal(b->sample(st, dev, &s), TC_OK);
    assert_int_equal(s.mono_ns, now_ns);
    return s;
}

/* ---- shared helpers ---- */

static void parse_integers_strictly(void **state)
{
    (void)state;
    int64_t v = 7;
    uint64_t u = 7;
    assert_int_equal(tc_telem_parse_i64("123", &v), TC_OK);
    assert_int_equal(v, 123);
    assert_int_equal(tc_telem_parse_i64("-5", &v), TC_OK);
    assert_int_equal(v, -5);
    assert_int_equal(tc_telem_parse_i64("-9223372036854775808", &v), TC_OK);
    assert_true(v == INT64_MIN);
    v = 7;
    const char *bad[] = {"", "-", "+1", " 1", "1 ", "0x10", "12a", "9223372036854775808", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tc_telem_parse_i64(bad[i], &v), TC_ERR_PARSE);
    assert_int_equal(v, 7);
    assert_int_equal(tc_telem_parse_u64("18446744073709551615", &u), TC_OK);
    assert_true(u == UINT64_MAX);
    assert_int_equal(tc_telem_parse_u64("18446744073709551616", &u), TC_ERR_PARSE);
    assert_int_equal(tc_telem_parse_u64("-1", &u), TC_ERR_PARSE);
}

static void read_text_join_and_scan(void **state)
{
    tmp *t = *state;
    char buf[8], path[128];
    int eno = 0;
    assert_int_equal(tc_root_join(path, sizeof path, "/a/", "b"), TC_OK);
    assert_string_equal(path, "/a/b");
    assert_int_equal(tc_root_join(path, sizeof path, "/", "opt/x"), TC_OK);
    assert_string_equal(path, "/opt/x");
    assert_int_equal(tc_root_join(path, 5, "/abc", "d"), TC_ERR_INVALID);
    assert_string_equal(path, ""); /* too long: a path nothing opens */
    assert_int_equal(tc_root_join(path, sizeof path, "tree//", "/proc/x"), TC_OK);
    assert_string_equal(path, "tree/proc/x");
    assert_int_equal(tc_root_join(path, sizeof path, NULL, "rel/x"), TC_OK);
    assert_string_equal(path, "rel/x");

    put(t, "/f", "0x1002\n");
    snprintf(path, sizeof path, "%s/f", t->dir);
    assert_int_equal(tc_root_read(NULL, path, buf, sizeof buf, &eno), TC_OK);
    assert_string_equal(buf, "0x1002");
    put(t, "/f", "12345678\n"); /* 9 bytes do not fit in 8 */
    assert_int_equal(tc_root_read(NULL, path, buf, sizeof buf, &eno), TC_ERR_INVALID);
    assert_string_equal(buf, "");
    put(t, "/f", "1234567");
    assert_int_equal(tc_root_read(NULL, path, buf, sizeof buf, &eno), TC_OK);
    assert_string_equal(buf, "1234567");
    assert_int_equal(tc_root_read(t->dir, "/f", buf, sizeof buf, &eno), TC_OK); /* under a root */
    assert_string_equal(buf, "1234567");
    assert_int_equal(eno, 0);
    put(t, "/f", "");
    assert_int_equal(tc_root_read(t->dir, "f", buf, sizeof buf, &eno), TC_OK);
    assert_string_equal(buf, "");
    put(t, "/f", "v1 \t\r\n");
    assert_int_equal(tc_root_read(t->dir, "f", buf, sizeof buf, &eno), TC_OK);
    assert_string_equal(buf, "v1");
    assert_int_equal(tc_root_read(NULL, t->dir, buf, sizeof buf, &eno), TC_ERR_IO);
    assert_int_equal(eno, EISDIR);
    snprintf(path, sizeof path, "%s/none", t->dir);
    assert_int_equal(tc_root_read(NULL, path, buf, sizeof buf, &eno), TC_ERR_IO);
    assert_int_equal(eno, ENOENT);

    int *idx, n;
    assert_int_equal(tc_telem_scan_indexed(FIX "amdgpu-full/class/drm", "card", &idx, &n), TC_OK);
    assert_int_equal(n, 2); /* card0, card1; not card0-DP-1, renderD128, version */
    assert_int_equal(idx[0], 0);
    assert_int_equal(idx[1], 1);
    free(idx);
    assert_int_equal(tc_telem_scan_indexed(FIX "rapl-two-packages" PC, "intel-rapl:", &idx, &n),
                     TC_OK);
    assert_int_equal(n, 3); /* :0 :1 :2, not the sub-zones :0:0 ... */
    assert_int_equal(idx[2], 2);
    free(idx);
    assert_int_equal(tc_telem_scan_indexed(path, "x", &idx, &n), TC_ERR_NOTFOUND);
    assert_null(idx);
    assert_int_equal(n, 0);
}

/* ---- RAPL ---- */

static void rapl_finds_packages_only(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_rapl;
    assert_string_equal(b->name, "rapl");
    void *st = init_ok(b, FIX "rapl-two-packages");
    assert_int_equal(b->device_count(st), 2); /* psys and sub-zones are not devices */
    for (int i = 0; i < 2; i++) {
        tc_telem_device d;
        char want[32];
        b->device_info(st, i, &d);
        assert_int_equal(d.kind, TC_TELEM_CPU);
        snprintf(want, sizeof want, "package-%d", i);
        assert_string_equal(d.name, want);
        snprintf(want, sizeof want, "intel-rapl:%d", i);
        assert_string_equal(d.id, want);
        assert_string_equal(d.energy_what, "CPU package energy");
        assert_string_equal(d.driver, "");
        assert_string_equal(d.runtime, "");
    }
    assert_string_equal(b->last_error(st), "");
    b->shutdown(st);
    b->shutdown(NULL);
}

static void rapl_energy_and_power_from_deltas(void **state)
{
    tmp *t = *state;
    const tc_telem_backend *b = &tc_telem_rapl;
    copy_fixture(t, "rapl-two-packages");
    void *st = init_ok(b, t->dir); /* baselines 123456789 and 98765432 */

    /* First sample: energy since init, no previous sample, so no power. */
    put(t, PC "intel-rapl:0/energy_uj", "133456789\n");
    tc_telem_sample s = sample_at(b, st, 0, 1000000000);
    assert_int_equal(s.valid, TC_TF_ENERGY);
    assert_int_equal(s.energy_uj, 10000000);
    assert_int_equal(s.power_mw, 0);

    /* 50 J over 0.5 s = 100 W; sub-zones and psys moving change nothing. */
    put(t, PC "intel-rapl:0/energy_uj", "183456789\n");
    put(t, PC "intel-rapl:0/intel-rapl:0:0/energy_uj", "1\n");
    put(t, PC "intel-rapl:2/energy_uj", "1\n");
    s = sample_at(b, st, 0, 1500000000);
    assert_int_equal(s.valid, TC_TF_ENERGY | TC_TF_POWER);
    assert_int_equal(s.energy_uj, 60000000);
    assert_int_equal(s.power_mw, 100000);
    assert_int_equal(s.power_instant, 0);

    /* No change over 2 s: 0 W, a real zero, valid. */
    s = sample_at(b, st, 0, 3500000000);
    assert_int_equal(s.valid, TC_TF_ENERGY | TC_TF_POWER);
    assert_int_equal(s.energy_uj, 60000000);
    assert_int_equal(s.power_mw, 0);

    /* Package 1 keeps its own baseline and its own previous-sample time. */
    put(t, PC "intel-rapl:1/energy_uj", "98765433\n");
    s = sample_at(b, st, 1, 3600000000);
    assert_int_equal(s.valid, TC_TF_ENERGY);
    assert_int_equal(s.energy_uj, 1);
    assert_string_equal(b->last_error(st), "");
    b->shutdown(st);
}

static void rapl_wraparound_is_folded_in(void **state)
{
    tmp *t = *state;
    const tc_telem_backend *b = &tc_telem_rapl;
    copy_fixture(t, "rapl-wrap");
    void *st = init_ok(b, t->dir); /* baseline 262143000000, max 262143328850 */
    tc_telem_sample s = sample_at(b, st, 0, 1000000000);
    assert_int_equal(s.energy_uj, 0);

    /* 328850 µJ up to the wrap point, then 671150 after it: 1 J in 0.25 s. */
    put(t, PC "intel-rapl:0/energy_uj", "671150\n");
    s = sample_at(b, st, 0, 1250000000);
    assert_int_equal(s.valid, TC_TF_ENERGY | TC_TF_POWER);
    assert_int_equal(s.energy_uj, 1000000);
    assert_int_equal(s.power_mw, 4000);

    put(t, PC "intel-rapl:0/energy_uj", "1671150\n");
    s = sample_at(b, st, 0, 1500000000);
    assert_int_equal(s.energy_uj, 2000000);
    assert_int_equal(s.power_mw, 4000);

    /* A decrease with no known wrap point is not guessed at: the interval
     * is dropped, said so, and counting goes on from the new value. */
    drop(t, PC "intel-rapl:0/max_energy_range_uj");
    b->shutdown(st);
    st = init_ok(b, t->dir); /* baseline 1671150 */
    put(t, PC "intel-rapl:0/energy_uj", "5\n");
    s = sample_at(b, st, 0, 2000000000);
    assert_int_equal(s.valid, 0);
    assert_non_null(strstr(b->last_error(st), "no max_energy_range_uj"));
    put(t, PC "intel-rapl:0/energy_uj", "105\n");
    s = sample_at(b, st, 0, 3000000000);
    assert_int_equal(s.valid, TC_TF_ENERGY);
    assert_int_equal(s.energy_uj, 100);
    b->shutdown(st);
}

static void rapl_absent_sources(void **state)
{
    tmp *t = *state;
    const tc_telem_backend *b = &tc_telem_rapl;
    char err[512], want[512];
    void *st = (void *)1;
    tc_telem_config cfg = {.sysfs_root = FIX "amdgpu-full"};
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    assert_string_equal(err, "no RAPL powercap zones under " FIX "amdgpu-full/class/powercap");

    /* A powercap tree with only psys: zones, but no package. */
    snprintf(want, sizeof want, "mkdir -p %s/class/powercap/intel-rapl:0", t->dir);
    assert_int_equal(system(want), 0);
    put(t, PC "intel-rapl:0/name", "psys\n");
    put(t, PC "intel-rapl:0/energy_uj", "1\n");
    cfg.sysfs_root = t->dir;
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    snprintf(want, sizeof want, "no RAPL package-* zones under %s/class/powercap", t->dir);
    assert_string_equal(err, want);
}

static void rapl_unreadable_counters(void **state)
{
    tmp *t = *state;
    const tc_telem_backend *b = &tc_telem_rapl;
    char err[512];
    void *st = (void *)1;
    /* Package 0 has no energy_uj, package 1's is a directory. */
    tc_telem_config cfg = {.sysfs_root = FIX "rapl-denied"};
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    assert_string_equal(err, "not available: cannot read " FIX "rapl-denied" PC
                             "intel-rapl:0/energy_uj: No such file or directory");

    /* One of two unreadable: both devices, the unreadable one without
     * energy or power, and the reason in last_error. */
    copy_fixture(t, "rapl-two-packages");
    drop(t, PC "intel-rapl:1/energy_uj");
    st = init_ok(b, t->dir);
    assert_int_equal(b->device_count(st), 2);
    assert_non_null(strstr(b->last_error(st), "intel-rapl:1/energy_uj: No such file"));
    tc_telem_sample s = sample_at(b, st, 1, 1000000000);
    assert_int_equal(s.valid, 0);
    sample_at(b, st, 1, 2000000000);
    s = sample_at(b, st, 1, 3000000000);
    assert_int_equal(s.valid, 0);
    s = sample_at(b, st, 0, 3000000000);
    assert_int_equal(s.valid, TC_TF_ENERGY);

    /* A counter that disappears mid-run: the device is lost. */
    drop(t, PC "intel-rapl:0/energy_uj");
    fake_now = 4000000000;
    assert_int_equal(b->sample(st, 0, &s), TC_ERR_IO);
    assert_int_equal(s.valid, 0);
    assert_non_null(strstr(b->last_error(st), "intel-rapl:0/energy_uj"));
    b->shutdown(st);
}

/* In a child that is not root (root reads through file modes): the real
 * EACCES path of Linux >= 5.10. Exits 0 when every check holds. */
static void child_expect_denied(const char *root)
{
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        _exit(77);
    const tc_telem_backend *b = &tc_telem_rapl;
    char err[512] = "", want[512];
    snprintf(want, sizeof want,
             "not available: RAPL energy_uj is readable by root only since Linux 5.10; grant "
             "read access with e.g. `sudo chmod a+r %s/class/powercap/intel-rapl:*/energy_uj`",
             root);
    tc_telem_config cfg = {.sysfs_root = root};
    void *st = NULL;
    tc_err e = b->init(&cfg, &st, err, sizeof err);
    if (e != TC_ERR_NOTFOUND || st || strcmp(err, want) != 0) {
        fprintf(stderr, "all denied: %s (%s)\n", tc_strerror(e), err);
        _exit(1);
    }
    _exit(0);
}

static void child_expect_partly_denied(const char *root)
{
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        _exit(77);
    const tc_telem_backend *b = &tc_telem_rapl;
    char err[512] = "";
    tc_telem_config cfg = {.sysfs_root = root};
    void *st = NULL;
    tc_err e = b->init(&cfg, &st, err, sizeof err);
    tc_telem_sample s0 = {0}, s1 = {0};
    if (e == TC_OK) {
        b->sample(st, 0, &s0);
        b->sample(st, 1, &s1);
    }
    int ok = e == TC_OK && b->device_count(st) == 2 && s0.valid == TC_TF_ENERGY && s1.valid == 0 &&
             strstr(b->last_error(st), "readable by root only since Linux 5.10");
    if (!ok)
        fprintf(stderr, "partly denied: %s (%s) %s\n", tc_strerror(e), err,
                st ? b->last_error(st) : "");
    b->shutdown(st);
    _exit(ok ? 0 : 1);
}

static void run_child(void (*child)(const char *), const char *root)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(root);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void rapl_permission_denied_for_real(void **state)
{
    tmp *t = *state;
    char p0[256], p1[256];
    copy_fixture(t, "rapl-two-packages");
    snprintf(p0, sizeof p0, "%s" PC "intel-rapl:0/energy_uj", t->dir);
    snprintf(p1, sizeof p1, "%s" PC "intel-rapl:1/energy_uj", t->dir);
    /* The child may be "nobody": the tree is open to it, the counters not. */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R a+rX %s", t->dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(chmod(p0, 0), 0);
    assert_int_equal(chmod(p1, 0), 0);
    run_child(child_expect_denied, t->dir);
    assert_int_equal(chmod(p0, 0444), 0);
    run_child(child_expect_partly_denied, t->dir);
}

/* ---- amdgpu ---- */

static void amdgpu_full_card(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_amdgpu;
    assert_string_equal(b->name, "amdgpu");
    void *st = init_ok(b, FIX "amdgpu-full");
    assert_int_equal(b->device_count(st), 1); /* card1 is NVIDIA, card0-DP-1 a connector */
    tc_telem_device d;
    b->device_info(st, 0, &d);
    assert_int_equal(d.kind, TC_TELEM_GPU);
    assert_string_equal(d.name, "AMD Instinct MI300X");
    assert_string_equal(d.id, "card0");
    assert_string_equal(d.driver, "6.7.0");
    assert_string_equal(d.runtime, "ROCm 6.1.2");
    assert_string_equal(d.energy_what, "GPU energy integrated from power");

    tc_telem_sample s = sample_at(b, st, 0, 42);
    /* Everything but energy: sysfs has no counter, the caller integrates. */
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM | TC_TF_MEM_USED |
                                  TC_TF_MEM_TOTAL | TC_TF_TEMP | TC_TF_TEMP_HOT | TC_TF_CLOCK_SM |
                                  TC_TF_CLOCK_MEM | TC_TF_POWER_LIMIT);
    assert_int_equal(s.power_mw, 612000); /* power1_input, not the 598 W average */
    assert_int_equal(s.power_instant, 1);
    assert_int_equal(s.energy_uj, 0);
    assert_int_equal(s.util_pct, 87);
    assert_int_equal(s.mem_util_pct, 42);
    assert_int_equal(s.mem_used_bytes, 68719476736LL);
    assert_int_equal(s.mem_total_bytes, 206141652992LL);
    assert_int_equal(s.temp_mc, 54000);
    assert_int_equal(s.temp_hot_mc, 71500);
    assert_int_equal(s.clock_sm_mhz, 1800);
    assert_int_equal(s.clock_mem_mhz, 1300);
    assert_int_equal(s.power_limit_mw, 750000);
    assert_string_equal(b->last_error(st), "");
    b->shutdown(st);
    b->shutdown(NULL);
}

static void amdgpu_average_only(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_amdgpu;
    void *st = init_ok(b, FIX "amdgpu-average-only");
    tc_telem_device d;
    b->device_info(st, 0, &d);
    assert_string_equal(d.name, "AMD GPU (card 0)");
    assert_string_equal(d.driver, "");
    assert_string_equal(d.runtime, "");
    tc_telem_sample s = sample_at(b, st, 0, 7);
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM | TC_TF_MEM_USED |
                                  TC_TF_MEM_TOTAL | TC_TF_TEMP | TC_TF_CLOCK_SM | TC_TF_CLOCK_MEM |
                                  TC_TF_POWER_LIMIT);
    assert_int_equal(s.power_mw, 35000);
    assert_int_equal(s.power_instant, 0);
    assert_int_equal(s.util_pct, 3);
    assert_int_equal(s.mem_util_pct, 0); /* a real 0, valid */
    assert_int_equal(s.mem_used_bytes, 536870912);
    assert_int_equal(s.mem_total_bytes, 17163091968LL);
    assert_int_equal(s.temp_mc, 41000);
    assert_int_equal(s.temp_hot_mc, 0);
    assert_int_equal(s.clock_sm_mhz, 500);
    assert_int_equal(s.clock_mem_mhz, 96);
    assert_int_equal(s.power_limit_mw, 272000);
    b->shutdown(st);
}

static void amdgpu_missing_and_malformed_files(void **state)
{
    tmp *t = *state;
    const tc_telem_backend *b = &tc_telem_amdgpu;
    copy_fixture(t, "amdgpu-full");
    drop(t, CARD0 "gpu_busy_percent");
    put(t, CARD0 "mem_busy_percent", "abc\n");
    put(t, CARD0 "mem_info_vram_used", "-1\n");
    put(t, CARD0 "pp_dpm_sclk", "0: 500Mhz \n1: 1800Mhz \n"); /* no level marked */
    put(t, CARD0 "pp_dpm_mclk", "0: fastMhz *\n");
    put(t, CARD0 "product_name", "\n"); /* consumer cards leave it empty */
    drop(t, HWMON3 "power1_input");
    drop(t, HWMON3 "temp1_input");
    put(t, HWMON3 "power1_cap", "\n");
    void *st = init_ok(b, t->dir);
    tc_telem_device d;
    b->device_info(st, 0, &d);
    assert_string_equal(d.name, "AMD GPU (card 0)");
    tc_telem_sample s = sample_at(b, st, 0, 1);
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_MEM_TOTAL | TC_TF_TEMP_HOT);
    assert_int_equal(s.power_mw, 598000); /* power1_average */
    assert_int_equal(s.power_instant, 0);
    assert_int_equal(s.util_pct, 0);
    assert_int_equal(s.mem_used_bytes, 0);

    /* No hwmon at all: no power, temperatures or limit. */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -r %s" CARD0 "hwmon", t->dir);
    assert_int_equal(system(cmd), 0);
    b->shutdown(st);
    st = init_ok(b, t->dir);
    s = sample_at(b, st, 0, 2);
    assert_int_equal(s.valid, TC_TF_MEM_TOTAL);

    /* The card disappears: the device is lost. */
    snprintf(cmd, sizeof cmd, "rm -r %s/class/drm/card0", t->dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(b->sample(st, 0, &s), TC_ERR_IO);
    assert_non_null(strstr(b->last_error(st), "card0"));
    b->shutdown(st);
}

static void amdgpu_absent(void **state)
{
    tmp *t = *state;
    const tc_telem_backend *b = &tc_telem_amdgpu;
    char err[512], want[512];
    void *st = (void *)1;
    tc_telem_config cfg = {.sysfs_root = FIX "rapl-two-packages"};
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    assert_string_equal(err, "no AMD GPU (vendor 0x1002) under " FIX "rapl-two-packages/class/drm");

    /* Only the NVIDIA card left. */
    copy_fixture(t, "amdgpu-full");
    snprintf(want, sizeof want, "rm -r %s/class/drm/card0", t->dir);
    assert_int_equal(system(want), 0);
    cfg.sysfs_root = t->dir;
    st = (void *)1;
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    snprintf(want, sizeof want, "no AMD GPU (vendor 0x1002) under %s/class/drm", t->dir);
    assert_string_equal(err, want);
}

/* What truecost monitor prints of a reading: a row under the header (the
 * header first moves the cursor up when redrawing), or one JSON line. */
static void monitor_report(void **state)
{
    (void)state;
    tc_telem_config cfg = {.sysfs_root = FIX "amdgpu-full", .opt_root = FIX "amdgpu-full"};
    tc_telem_set *s = NULL;
    char err[256];
    assert_int_equal(tc_telem_set_open("amdgpu", &cfg, &s, NULL, 0, err, sizeof err), TC_OK);
    tc_telem_sample x;
    assert_int_equal(tc_telem_set_sample(s, 0, &x), TC_OK);
    tc_monitor_reading r = {s, 0, &x, 0, 0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tc_report_monitor_header(f, 2);
    tc_report_monitor_row(f, &r);
    assert_int_equal(tc_report_monitor_json(f, &r, 1700000000LL * 1000000000LL), TC_OK);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(
        text,
        "\033[2A#  DEVICE                     SOURCE        POWER W   ENERGY J  UTIL%   MEM% "
        "      MEM GiB  TEMP C  SM MHz\n"
        "0  AMD Instinct MI300X        amdgpu          612.0        n/a     87     42    "
        "64.0/192.0      54    1800\n"
        "{\"time\":\"2023-11-14T22:13:20.000000000Z\",\"device\":0,\"name\":\"AMD Instinct "
        "MI300X\",\"backend\":\"amdgpu\",\"energy_what\":\"GPU energy integrated from "
        "power\",\"power_w\":612.0,\"power_instant\":true,\"energy_j\":null,\"util_pct\":87.0,"
        "\"mem_util_pct\":42.0,\"mem_used_bytes\":68719476736,\"mem_total_bytes\":"
        "206141652992,\"temp_c\":54.0,\"temp_hot_c\":71.5,\"clock_sm_mhz\":1800.0,"
        "\"clock_mem_mhz\":1300.0,\"power_limit_w\":750.0,\"error\":null}\n");
    free(text);
    tc_telem_set_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_integers_strictly),
        cmocka_unit_test_setup_teardown(read_text_join_and_scan, setup, teardown),
        cmocka_unit_test_setup_teardown(rapl_finds_packages_only, setup, teardown),
        cmocka_unit_test_setup_teardown(rapl_energy_and_power_from_deltas, setup, teardown),
        cmocka_unit_test_setup_teardown(rapl_wraparound_is_folded_in, setup, teardown),
        cmocka_unit_test_setup_teardown(rapl_absent_sources, setup, teardown),
        cmocka_unit_test_setup_teardown(rapl_unreadable_counters, setup, teardown),
        cmocka_unit_test_setup_teardown(rapl_permission_denied_for_real, setup, teardown),
        cmocka_unit_test_setup_teardown(amdgpu_full_card, setup, teardown),
        cmocka_unit_test_setup_teardown(amdgpu_average_only, setup, teardown),
        cmocka_unit_test_setup_teardown(amdgpu_missing_and_malformed_files, setup, teardown),
        cmocka_unit_test_setup_teardown(amdgpu_absent, setup, teardown),
        cmocka_unit_test(monitor_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
