/* truecost doctor against the fixture trees in tests/fixtures/doctor: for
 * each tree, the checks that should fire (status, evidence, fix) and that
 * every other check stays ok or skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "doctor/doctor.h"
#include "report/report_doctor.h"

#define DOCTOR_DIR TC_FIXTURES_DIR "/doctor/"
#define FAKE_NVML TC_FAKE_LIB_DIR "/libfake_nvml.so"
#define NO_LIB "/nonexistent/lib.so"

typedef struct fired {
    const char *id;
    tc_doctor_status status;
    const char *evidence; /* substring */
    const char *fix;      /* substring; NULL: not checked */
} fired;

typedef struct row {
    const char *tree;
    int fake_nvml; /* load tests/fake's NVML (driver 550.54.15) */
    int status;
    fired fire[5];
} row;

static const row rows[] = {
    {"healthy-nvidia", 1, 0, {{NULL, 0, NULL, NULL}}},
    {"healthy-amd", 0, 0, {{NULL, 0, NULL, NULL}}},
    {"cpu-only", 0, 0, {{NULL, 0, NULL, NULL}}},
    {"wsl2-nvidia",
     1,
     0,
     {{"wsl.dxg", TC_DOCTOR_OK, "/dev/dxg present", NULL},
      {"wsl.nvidia", TC_DOCTOR_OK, "Windows NVIDIA driver provides CUDA",
       "do not install a Linux NVIDIA driver"},
      {"nvidia.module", TC_DOCTOR_SKIP, "WSL2: the Windows driver", NULL},
      {"cpu.rapl", TC_DOCTOR_SKIP, "no /sys/class/powercap", NULL}}},
    {"wsl2-amd-no-kfd",
     0,
     2,
     {{"wsl.amd", TC_DOCTOR_FAIL, "no /dev/kfd", "amdgpu-install --usecase=wsl,rocm"},
      {"wsl.dxg", TC_DOCTOR_OK, "/dev/dxg present", NULL},
      {"amd.rocm", TC_DOCTOR_OK, "ROCm 6.1.3-122", NULL},
      {"truecost.telemetry", TC_DOCTOR_WARN, "rapl", "without a sensor"}}},
    {"nvidia-no-module",
     1,
     2,
     {{"nvidia.module", TC_DOCTOR_FAIL, "/proc/modules has no nvidia", "reboot"},
      {"nvidia.dkms", TC_DOCTOR_SKIP, "no /var/lib/dkms/nvidia", NULL},
      {"nvidia.nvml", TC_DOCTOR_SKIP, "not loaded", NULL}}},
    {"nvidia-nouveau",
     1,
     2,
     {{"nvidia.nouveau", TC_DOCTOR_FAIL, "nouveau in /proc/modules", "nouveau.modeset=0"},
      {"nvidia.module", TC_DOCTOR_FAIL, "no nvidia", NULL},
      {"nvidia.secureboot", TC_DOCTOR_OK, "Secure Boot disabled", NULL}}},
    /* The open kernel module's /proc line says "Open Kernel Module for
     * x86_64  550.54.15": the version is the first word with a digit. */
    {"nvidia-open",
     1,
     0,
     {{"nvidia.version", TC_DOCTOR_OK, "kernel module 550.54.15 (/proc/driver/nvidia/version)",
       NULL}}},
    {"nvidia-open-sysfs",
     1,
     0,
     {{"nvidia.version", TC_DOCTOR_OK, "kernel module 550.54.15 (/sys/module/nvidia/version)",
       NULL}}},
    /* Its DKMS nvidia.ko ends without the signature trailer. */
    {"nvidia-secureboot",
     1,
     2,
     {{"nvidia.secureboot", TC_DOCTOR_FAIL,
       "Secure Boot enabled (efivars SecureBoot byte 5 = 1); nvidia not loaded: "
       "/var/lib/dkms/nvidia/550.54.15/6.8.0-45-generic/x86_64/module/nvidia.ko has no "
       "signature",
       "mokutil --import"},
      {"nvidia.module", TC_DOCTOR_FAIL, "no nvidia", NULL},
      {"nvidia.dkms", TC_DOCTOR_OK, "550.54.15: 6.8.0-45-generic", NULL}}},
    /* Secure Boot on, but no driver installed: nothing to refuse. */
    {"nvidia-secureboot-nodriver",
     1,
     2,
     {{"nvidia.secureboot", TC_DOCTOR_WARN, "no nvidia module exists for kernel 6.8.0-45-generic",
       "see the module and DKMS checks"},
      {"nvidia.module", TC_DOCTOR_FAIL, "no nvidia", NULL},
      {"nvidia.dkms", TC_DOCTOR_SKIP, "no /var/lib/dkms/nvidia", NULL}}},
    {"nvidia-secureboot-nouveau",
     1,
     2,
     {{"nvidia.secureboot", TC_DOCTOR_SKIP, "nouveau holds the GPU: see the nouveau check", NULL},
      {"nvidia.nouveau", TC_DOCTOR_FAIL, "nouveau in /proc/modules", NULL},
      {"nvidia.module", TC_DOCTOR_FAIL, "no nvidia", NULL}}},
    /* A distribution's prebuilt module, found under /lib/modules/KERNEL. */
    {"nvidia-secureboot-signed",
     1,
     2,
     {{"nvidia.secureboot", TC_DOCTOR_WARN,
       "/lib/modules/6.8.0-45-generic/kernel/nvidia-550/nvidia.ko is signed",
       "Key was rejected by service"},
      {"nvidia.module", TC_DOCTOR_FAIL, "no nvidia", NULL},
      {"nvidia.dkms", TC_DOCTOR_SKIP, "no /var/lib/dkms/nvidia", NULL}}},
    {"nvidia-secureboot-zst",
     1,
     2,
     {{"nvidia.secureboot", TC_DOCTOR_WARN, "module/nvidia.ko.zst is compressed",
       "mokutil --import"},
      {"nvidia.module", TC_DOCTOR_FAIL, "no nvidia", NULL},
      {"nvidia.dkms", TC_DOCTOR_OK, "550.54.15: 6.8.0-45-generic", NULL}}},
    {"nvidia-dkms-missing",
     1,
     2,
     {{"nvidia.dkms", TC_DOCTOR_FAIL, "550.54.15: 6.5.0-41-generic", "sudo dkms autoinstall"},
      {"nvidia.module", TC_DOCTOR_FAIL, "no nvidia", NULL}}},
    {"nvidia-mismatch",
     1,
     2,
     {{"nvidia.version", TC_DOCTOR_FAIL, "kernel module 550.90.07", "reboot"},
      {"nvidia.nvml", TC_DOCTOR_OK, "driver 550.54.15", NULL}}},
    {"nvidia-no-dev",
     1,
     2,
     {{"nvidia.devnodes", TC_DOCTOR_FAIL, "/dev/nvidia0 missing", "nvidia-modprobe"}}},
    {"amd-no-module",
     0,
     2,
     {{"amd.module", TC_DOCTOR_FAIL, "/proc/modules has no amdgpu", "amdgpu-install"},
      {"amd.devnodes", TC_DOCTOR_SKIP, "amdgpu not loaded", NULL}}},
    {"amd-no-kfd",
     0,
     2,
     {{"amd.devnodes", TC_DOCTOR_FAIL, "/dev/kfd missing", "--device=/dev/kfd"},
      {"amd.access", TC_DOCTOR_SKIP, "device nodes missing", NULL}}},
    {"amd-not-in-groups",
     0,
     1,
     /* Fixture files are accessible to the test, as a seat ACL would make
      * them: a warning (the no-access failure is tested below). */
     {{"amd.access", TC_DOCTOR_WARN, "alice is in neither render nor video",
       "usermod -a -G render,video alice"}}},
    {"amd-no-rocm",
     0,
     1,
     {{"amd.rocm", TC_DOCTOR_WARN, "no /opt/rocm/.info/version", "amdgpu-install --usecase=rocm"}}},
    {"rapl-denied",
     0,
     1,
     {{"cpu.rapl", TC_DOCTOR_WARN, "intel-rapl:0/energy_uj", "chmod a+r"},
      {"truecost.telemetry", TC_DOCTOR_WARN, "rapl", NULL}}},
};

static char store_dir[64];

static tc_doctor_config config(const char *tree, int fake_nvml)
{
    static char root[512], store[128];
    snprintf(root, sizeof root, DOCTOR_DIR "%s", tree);
    snprintf(store, sizeof store, "%s/sub/truecost.db", store_dir);
    tc_doctor_config c = {0};
    c.root = root;
    c.user = "alice";
    c.nvml_lib = fake_nvml ? FAKE_NVML : NO_LIB;
    c.rocm_lib = NO_LIB;
    c.store_path = store;
    c.no_server = 1;
    return c;
}

static const char *no_env(const char *name)
{
    (void)name;
    return NULL;
}

static tc_doctor_report *run(tc_doctor_config *c)
{
    static tc_doctor_report r;
    char err[256];
    if (!c->env)
        c->env = no_env; /* the test's own environment must not leak in */
    assert_int_equal(tc_doctor_run(c, &r, err, sizeof err), TC_OK);
    return &r;
}

static const tc_doctor_check *get(const tc_doctor_report *r, const char *id)
{
    const tc_doctor_check *k = tc_doctor_find(r, id);
    if (!k)
        fail_msg("no check %s", id);
    return k;
}

static void expect(const tc_doctor_report *r, const char *tree, const fired *f)
{
    const tc_doctor_check *k = get(r, f->id);
    if (k->status != f->status || !strstr(k->evidence, f->evidence) ||
        (f->fix && !strstr(k->fix, f->fix)))
        fail_msg("%s: %s is %s [%s] fix [%s]; want %s with [%s] / [%s]", tree, f->id,
                 tc_doctor_status_name(k->status), k->evidence, k->fix,
                 tc_doctor_status_name(f->status), f->evidence, f->fix ? f->fix : "");
}

static int listed(const row *w, const char *id)
{
    for (int j = 0; j < 5 && w->fire[j].id; j++)
        if (strcmp(w->fire[j].id, id) == 0)
            return 1;
    return 0;
}

static void test_trees(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        row copy = rows[i];
        const row *w = &copy;
        char kfd[600];
        snprintf(kfd, sizeof kfd, DOCTOR_DIR "%s/dev/kfd", w->tree);
        /* A checkout owned by someone else leaves the node unwritable to
         * the test: then the same tree reads as "no access", a failure. */
        if (strcmp(w->tree, "amd-not-in-groups") == 0 && access(kfd, R_OK | W_OK) != 0) {
            copy.fire[0].status = TC_DOCTOR_FAIL;
            copy.status = 2;
        }
        tc_doctor_config c = config(w->tree, w->fake_nvml);
        const tc_doctor_report *r = run(&c);
        for (int j = 0; j < 5 && w->fire[j].id; j++)
            expect(r, w->tree, &w->fire[j]);
        for (int j = 0; j < r->n; j++) {
            const tc_doctor_check *k = &r->checks[j];
            if (!listed(w, k->id) && k->status != TC_DOCTOR_OK && k->status != TC_DOCTOR_SKIP)
                fail_msg("%s: %s should stay quiet, is %s: %s", w->tree, k->id,
                         tc_doctor_status_name(k->status), k->evidence);
            if (k->status != TC_DOCTOR_SKIP && !k->evidence[0])
                fail_msg("%s: %s has no evidence", w->tree, k->id);
        }
        if (r->status != w->status)
            fail_msg("%s: overall %d, want %d", w->tree, r->status, w->status);
    }
}

/* The GPU list names the GPU functions, not their HDMI audio functions. */
static void test_gpu_found(void **state)
{
    (void)state;
    tc_doctor_config c = config("healthy-nvidia", 1);
    const tc_doctor_check *k = get(run(&c), "gpu.found");
    assert_non_null(strstr(k->evidence, "NVIDIA (vendor 0x10de): 0000:01:00.0; kernel"));
    c = config("cpu-only", 0);
    k = get(run(&c), "gpu.found");
    assert_non_null(strstr(k->evidence, "CPU only"));
    assert_int_equal(k->status, TC_DOCTOR_SKIP); /* not "ok GPUs found" */
    c = config("healthy-amd", 0);
    c.kernel_release = "6.11.0-custom";
    k = get(run(&c), "gpu.found");
    assert_non_null(strstr(k->evidence, "AMD (vendor 0x1002): 0000:03:00.0; kernel 6.11.0-custom"));
}

static tc_err nvml_mismatch(const char *lib, char *ver, size_t len, char *err, size_t errlen)
{
    (void)lib, (void)ver, (void)len;
    return tc_fail(err, errlen, TC_ERR_INVALID, "nvmlInit: Driver/library version mismatch (18)");
}

static tc_err nvml_535(const char *lib, char *ver, size_t len, char *err, size_t errlen)
{
    (void)lib, (void)err, (void)errlen;
    snprintf(ver, len, "535.183.01");
    return TC_OK;
}

/* The Secure Boot check judges the module of the running kernel: the
 * unsigned DKMS build is another kernel's, or the kernel is not known. */
static void test_secure_boot_kernel(void **state)
{
    (void)state;
    tc_doctor_config c = config("nvidia-secureboot", 1);
    c.kernel_release = "6.9.0-1-generic";
    fired other = {"nvidia.secureboot", TC_DOCTOR_WARN,
                   "no nvidia module exists for kernel 6.9.0-1-generic (none in "
                   "/var/lib/dkms/nvidia/*/6.9.0-1-generic or /lib/modules/6.9.0-1-generic)",
                   "see the module and DKMS checks"};
    expect(run(&c), "other kernel", &other);
    c.kernel_release = "";
    fired unknown = {"nvidia.secureboot", TC_DOCTOR_WARN, "kernel's release is unknown",
                     "modinfo -F signer nvidia"};
    expect(run(&c), "unknown kernel", &unknown);
}

static void test_nvml_injected(void **state)
{
    (void)state;
    tc_doctor_config c = config("healthy-nvidia", 0);
    c.nvml_version = nvml_mismatch;
    const tc_doctor_report *r = run(&c);
    fired f1 = {"nvidia.version", TC_DOCTOR_FAIL, "Driver/library version mismatch", "reboot"};
    fired f2 = {"nvidia.nvml", TC_DOCTOR_FAIL, "version mismatch", NULL};
    expect(r, "injected mismatch", &f1);
    expect(r, "injected mismatch", &f2);
    assert_int_equal(r->status, 2);

    c.nvml_version = nvml_535;
    r = run(&c);
    fired f3 = {"nvidia.version", TC_DOCTOR_FAIL, "kernel module 550.54.15", "reboot"};
    expect(r, "injected 535", &f3);
}

static void test_nvml_not_loadable(void **state)
{
    (void)state;
    tc_doctor_config c = config("healthy-nvidia", 0);
    const tc_doctor_report *r = run(&c);
    fired f = {"nvidia.nvml", TC_DOCTOR_FAIL, "cannot load " NO_LIB, "libnvidia-compute"};
    fired v = {"nvidia.version", TC_DOCTOR_SKIP, "NVML not loadable", NULL};
    expect(r, "no nvml", &f);
    expect(r, "no nvml", &v);
}

static const char *env_override(const char *name)
{
    return strcmp(name, "HSA_OVERRIDE_GFX_VERSION") == 0 ? "10.3.0" : NULL;
}

static void test_hsa_override(void **state)
{
    (void)state;
    tc_doctor_config c = config("healthy-amd", 0);
    c.env = env_override;
    const tc_doctor_report *r = run(&c);
    fired f = {"amd.hsa_override", TC_DOCTOR_WARN, "HSA_OVERRIDE_GFX_VERSION=10.3.0",
               "supported list"};
    expect(r, "override", &f);
    assert_int_equal(r->status, 1);
    /* the warning's title says what is wrong: it is set, not "not set" */
    assert_string_equal(get(r, "amd.hsa_override")->title,
                        "HSA_OVERRIDE_GFX_VERSION is set (a work-around)");
    /* Without an AMD GPU the variable does not matter. */
    c = config("cpu-only", 0);
    c.env = env_override;
    assert_int_equal(get(run(&c), "amd.hsa_override")->status, TC_DOCTOR_SKIP);
}

/* Root sees every file: the no-access failure needs an ordinary user. */
static void test_no_access(void **state)
{
    (void)state;
    if (geteuid() == 0)
        skip();
    char tree[128], dev[160];
    snprintf(tree, sizeof tree, "%s/noacc", store_dir);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp -r " DOCTOR_DIR "amd-not-in-groups %s", tree);
    assert_int_equal(system(cmd), 0);
    snprintf(dev, sizeof dev, "%s/dev/kfd", tree);
    assert_int_equal(chmod(dev, 0), 0);
    tc_doctor_config c = config("amd-not-in-groups", 0);
    c.root = tree;
    fired f = {"amd.access", TC_DOCTOR_FAIL, "not accessible", "log out and in again"};
    expect(run(&c), "no access", &f);
}

static void test_root_user_and_server(void **state)
{
    (void)state;
    tc_doctor_config c = config("amd-not-in-groups", 0);
    c.user = "root";
    assert_int_equal(get(run(&c), "amd.access")->status, TC_DOCTOR_OK);
    /* Nothing listens on port 1: the server check warns, models skip. */
    static const char *const urls[] = {"http://127.0.0.1:1", NULL};
    c = config("cpu-only", 0);
    c.no_server = 0;
    c.server_urls = urls;
    const tc_doctor_report *r = run(&c);
    fired f = {"server.local", TC_DOCTOR_WARN, "no inference server answers", "ollama serve"};
    expect(r, "no server", &f);
    assert_int_equal(get(r, "server.models")->status, TC_DOCTOR_SKIP);
}

static void test_bad_root(void **state)
{
    (void)state;
    tc_doctor_config c = config("no-such-tree", 0);
    tc_doctor_report *r = malloc(sizeof *r);
    char err[256];
    assert_int_equal(tc_doctor_run(&c, r, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "not a directory"));
    free(r);
    assert_string_equal(tc_doctor_status_name(TC_DOCTOR_WARN), "warn");
}

/* The documents of a report: a line per check with its evidence and fix
 * (none for a skipped one), the closing verdict, and the same as JSON. */
static void test_report(void **state)
{
    (void)state;
    tc_doctor_config c = config("amd-no-kfd", 0);
    const tc_doctor_report *r = run(&c);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tc_report_doctor_text(f, r);
    assert_int_equal(fclose(f), 0);
    assert_memory_equal(text, "ok   GPUs found\n     AMD (vendor 0x1002): 0000:03:00.0", 52);
    assert_non_null(strstr(text, "skip NVIDIA kernel module loaded\n     no NVIDIA GPU\nskip"));
    assert_non_null(strstr(text, "FAIL /dev/kfd and /dev/dri/renderD* present\n"));
    assert_non_null(strstr(text, "\n     fix: "));
    assert_non_null(strstr(text, "\n\nSome checks failed: see the fixes above.\n"));
    free(text);

    json_t *doc = tc_report_doctor_json(r);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "status")), r->status);
    json_t *checks = json_object_get(doc, "checks");
    assert_int_equal(json_array_size(checks), r->n);
    json_t *k = json_array_get(checks, 0);
    assert_string_equal(json_string_value(json_object_get(k, "id")), "gpu.found");
    assert_string_equal(json_string_value(json_object_get(k, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(k, "evidence")), r->checks[0].evidence);
    json_decref(doc);
}

int main(void)
{
    snprintf(store_dir, sizeof store_dir, "/tmp/tc-doctor-XXXXXX");
    if (!mkdtemp(store_dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_gpu_found),
        cmocka_unit_test(test_secure_boot_kernel),
        cmocka_unit_test(test_nvml_injected),
        cmocka_unit_test(test_nvml_not_loadable),
        cmocka_unit_test(test_hsa_override),
        cmocka_unit_test(test_no_access),
        cmocka_unit_test(test_root_user_and_server),
        cmocka_unit_test(test_bad_root),
        cmocka_unit_test(test_report),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", store_dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
