/* Unit tests of the environment fingerprint and its diff against fixture
 * trees (tests/fixtures/env/<tree>): every field read exactly, null for
 * what a tree lacks, and the differences named with their reasons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "envinfo/env_fingerprint.h"
#include "analysis/env_diff.h"
#include "views/view_env_pair.h"
#include "report/report_env.h"

#define TREE(name) TC_FIXTURES_DIR "/env/" name
#define FAKE_NVML TC_FAKE_LIB_DIR "/libfake_nvml.so"
#define GIB (1024LL * 1024 * 1024)

/* Telemetry runs for real, but every source is pointed where nothing is:
 * the libraries and commands do not exist, sysfs is the tree's own. */
static json_t *collect_with(const char *tree, const char *nvml, const char *store)
{
    char sysfs[1024], err[512] = "";
    snprintf(sysfs, sizeof sysfs, "%s/sys", tree);
    tc_env_config cfg = {.root = tree,
                         .model_store = store,
                         .telemetry = "auto",
                         .telem = {.sysfs_root = sysfs,
                                   .nvml_lib = nvml ? nvml : "/nonexistent/libnvidia-ml.so.1",
                                   .rocm_lib = "/nonexistent/librocm_smi64.so",
                                   .nvidia_smi = "/nonexistent/nvidia-smi",
                                   .rocm_smi = "/nonexistent/rocm-smi"}};
    json_t *fp = NULL;
    tc_err rc = tc_env_collect(&cfg, &fp, err, sizeof err);
    if (rc != TC_OK)
        fail_msg("tc_env_collect(%s): %s", tree, err);
    return fp;
}

static json_t *collect(const char *tree)
{
    return collect_with(tree, NULL, NULL);
}

static json_t *at(json_t *doc, const char *path)
{
    char key[64];
    while (doc && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        doc = json_is_array(doc) ? json_array_get(doc, strtoul(key, NULL, 10))
                                 : json_object_get(doc, key);
        path += n + (path[n] == '.');
    }
    return doc;
}

#define assert_field_str(fp, path, want)                                                           \
    do {                                                                                           \
        json_t *v_ = at(fp, path);                                                                 \
        if (!json_is_string(v_))                                                                   \
            fail_msg("%s: not a string", path);                                                    \
        assert_string_equal(json_string_value(v_), want);                                          \
    } while (0)

#define assert_field_int(fp, path, want)                                                           \
    do {                                                                                           \
        json_t *v_ = at(fp, path);                                                                 \
        if (!json_is_integer(v_))                                                                  \
            fail_msg("%s: not an integer", path);                                                  \
        assert_int_equal(json_integer_value(v_), want);                                            \
    } while (0)

#define assert_field_null(fp, path)                                                                \
    do {                                                                                           \
        json_t *v_ = at(fp, path);                                                                 \
        if (!json_is_null(v_))                                                                     \
            fail_msg("%s: expected null (present and null)", path);                                \
    } while (0)

static void debian_nvidia_host(void **state)
{
    (void)state;
    json_t *fp = collect(TREE("debian-nvidia"));
    assert_field_str(fp, "os.name", "Debian GNU/Linux 12 (bookworm)");
    assert_field_str(fp, "os.version", "12");
    assert_field_str(fp, "os.kernel", "6.1.0-18-amd64");
    assert_field_str(fp, "os.virtualisation", "none");
    assert_field_str(fp, "cpu.model", "AMD EPYC 7763 64-Core Processor");
    assert_field_int(fp, "cpu.sockets", 2);
    assert_field_int(fp, "cpu.cores", 4);
    assert_field_int(fp, "cpu.threads", 8);
    assert_field_int(fp, "memory_bytes", 263846752LL * 1024);
    /* no ~/.ollama in the tree: the root filesystem, on an NVMe partition */
    assert_field_str(fp, "disk.path", "/");
    assert_field_str(fp, "disk.mount", "/");
    assert_field_str(fp, "disk.fstype", "ext4");
    assert_field_str(fp, "disk.device", "nvme0n1p2");
    assert_true(json_is_false(at(fp, "disk.rotational")));
    assert_field_null(fp, "server");
    assert_true(json_is_string(at(fp, "truecost.version")));
    assert_true(json_is_string(at(fp, "truecost.build.compiler")));
    assert_true(json_is_boolean(at(fp, "truecost.build.asan")));
    json_decref(fp);
}

/* The ISA bridge (not display) and the ASPEED BMC (display, but no
 * inference vendor) are left out; pci.ids names the GPU. */
static void debian_nvidia_gpu_from_pci(void **state)
{
    (void)state;
    json_t *fp = collect(TREE("debian-nvidia"));
    assert_int_equal(json_array_size(json_object_get(fp, "gpus")), 1);
    assert_field_str(fp, "gpus.0.vendor", "NVIDIA");
    assert_field_str(fp, "gpus.0.name", "GH100 [H100 SXM5 80GB]");
    assert_field_str(fp, "gpus.0.pci_id", "10de:2330");
    assert_field_str(fp, "gpus.0.driver", "550.54.15");
    assert_field_null(fp, "gpus.0.runtime");
    assert_field_null(fp, "gpus.0.memory_bytes");
    assert_field_null(fp, "gpus.0.power_limit_w");
    json_decref(fp);
}

/* A telemetry backend that finds the GPU wins over the PCI ids: no second
 * entry for the same vendor. */
static void gpu_from_telemetry(void **state)
{
    (void)state;
    unsetenv("FAKE_NVML_DEVICES");
    json_t *fp = collect_with(TREE("debian-nvidia"), FAKE_NVML, NULL);
    assert_int_equal(json_array_size(json_object_get(fp, "gpus")), 1);
    assert_field_str(fp, "gpus.0.vendor", "NVIDIA");
    assert_field_str(fp, "gpus.0.name", "NVIDIA H100 80GB HBM3");
    assert_field_str(fp, "gpus.0.driver", "550.54.15");
    assert_field_str(fp, "gpus.0.runtime", "CUDA 12.4");
    assert_field_int(fp, "gpus.0.memory_bytes", 80 * GIB);
    assert_true(json_is_real(at(fp, "gpus.0.power_limit_w")));
    assert_true(json_real_value(at(fp, "gpus.0.power_limit_w")) == 700.0);
    assert_field_null(fp, "gpus.0.pci_id");
    json_decref(fp);
}

static void model_store_disks(void **state)
{
    (void)state;
    json_t *fp = collect_with(TREE("debian-nvidia"), NULL, "/home/u/.ollama");
    assert_field_str(fp, "disk.path", "/home/u/.ollama");
    assert_field_str(fp, "disk.mount", "/home");
    assert_field_str(fp, "disk.fstype", "xfs");
    assert_field_str(fp, "disk.device", "sda1");
    assert_true(json_is_true(at(fp, "disk.rotational"))); /* the partition's parent disk */
    json_decref(fp);

    fp = collect_with(TREE("debian-nvidia"), NULL, "/homer/models"); /* not under /home */
    assert_field_str(fp, "disk.mount", "/");
    json_decref(fp);

    fp = collect_with(TREE("debian-nvidia"), NULL, "/home away/m"); /* "\040" in mountinfo */
    assert_field_str(fp, "disk.mount", "/home away");
    assert_field_str(fp, "disk.fstype", "tmpfs");
    assert_field_null(fp, "disk.device");
    assert_field_null(fp, "disk.rotational");
    json_decref(fp);
}

static void wsl2_tree(void **state)
{
    (void)state;
    json_t *fp = collect(TREE("wsl2"));
    assert_field_str(fp, "os.name", "Ubuntu 22.04.4 LTS");
    assert_field_str(fp, "os.version", "22.04");
    assert_field_str(fp, "os.kernel", "5.15.146.1-microsoft-standard-WSL2");
    assert_field_str(fp, "os.virtualisation", "wsl2");
    assert_field_str(fp, "cpu.model", "12th Gen Intel(R) Core(TM) i7-12700H");
    /* no "physical id" / "core id" lines: not told, so null, not guessed */
    assert_field_null(fp, "cpu.sockets");
    assert_field_null(fp, "cpu.cores");
    assert_field_int(fp, "cpu.threads", 4);
    assert_field_int(fp, "memory_bytes", 16314772LL * 1024);
    assert_field_str(fp, "disk.path", "/");
    assert_field_null(fp, "disk.mount");
    assert_field_null(fp, "disk.fstype");
    assert_field_null(fp, "disk.device");
    assert_field_null(fp, "disk.rotational");
    assert_int_equal(json_array_size(json_object_get(fp, "gpus")), 0);
    json_decref(fp);
}

static void ubuntu_amd_tree(void **state)
{
    (void)state;
    json_t *fp = collect(TREE("ubuntu-amd"));
    assert_field_str(fp, "os.name", "Ubuntu 24.04.1 LTS");
    assert_field_str(fp, "os.version", "24.04");
    assert_field_str(fp, "os.kernel", "6.8.0-45-generic");
    assert_field_str(fp, "os.virtualisation", "none");
    assert_field_str(fp, "cpu.model", "AMD Ryzen 9 7950X 16-Core Processor");
    assert_field_int(fp, "cpu.sockets", 1);
    assert_field_int(fp, "cpu.cores", 4);
    assert_field_int(fp, "cpu.threads", 8);
    assert_field_int(fp, "memory_bytes", 65536000LL * 1024);
    /* a /dev source but no sysfs node: named, type unknown */
    assert_field_str(fp, "disk.device", "sda2");
    assert_field_null(fp, "disk.rotational");
    assert_int_equal(json_array_size(json_object_get(fp, "gpus")), 1);
    assert_field_str(fp, "gpus.0.vendor", "AMD");
    assert_field_null(fp, "gpus.0.name"); /* no pci.ids in this tree */
    assert_field_str(fp, "gpus.0.pci_id", "1002:744c");
    assert_field_int(fp, "gpus.0.memory_bytes", 25753026560LL);
    assert_field_null(fp, "gpus.0.driver");
    assert_field_str(fp, "gpus.0.runtime", "ROCm 6.1.2");
    assert_field_null(fp, "gpus.0.power_limit_w");
    json_decref(fp);
}

static void virtualisation_kinds(void **state)
{
    (void)state;
    json_t *fp = collect(TREE("container"));
    assert_field_str(fp, "os.virtualisation", "container");
    json_decref(fp);
    fp = collect(TREE("kvm"));
    assert_field_str(fp, "os.virtualisation", "vm");
    json_decref(fp);
}

/* Pods of Kubernetes and containerd have no /.dockerenv and PID 1 is the
 * workload, not an init that says container=: the cgroup path, an overlay
 * root or the service account secrets tell instead. */
static void virtualisation_pods(void **state)
{
    (void)state;
    static const char *const containers[] = {
        TREE("k8s"),              /* cgroup kubepods + cri-containerd, overlay root */
        TREE("k8s-cgroupns"),     /* cgroup namespace ("0::/"): only the overlay root */
        TREE("k8s-secrets"),      /* only /var/run/secrets/kubernetes.io */
        TREE("docker-cgroup-v1"), /* only /proc/self/cgroup, v1 "/docker/ID" */
    };
    char wrong[2048] = ""; /* every tree that misses, not just the first */
    for (size_t i = 0; i < sizeof containers / sizeof containers[0]; i++) {
        json_t *fp = collect(containers[i]);
        const char *v = json_string_value(at(fp, "os.virtualisation"));
        if (!v || strcmp(v, "container") != 0) {
            size_t n = strlen(wrong);
            snprintf(wrong + n, sizeof wrong - n, " %s=%s", strrchr(containers[i], '/') + 1,
                     v ? v : "null");
        }
        json_decref(fp);
    }
    if (wrong[0])
        fail_msg("want container, got:%s", wrong);
    /* A host that runs Docker: its own cgroup names docker.service, and an
     * overlay is mounted, but not at "/". */
    json_t *fp = collect(TREE("docker-host"));
    assert_field_str(fp, "os.virtualisation", "none");
    json_decref(fp);
}

/* A tree with nothing in it: every field present and null. */
static void empty_tree(void **state)
{
    (void)state;
    json_t *fp = collect(TREE("no-such-tree"));
    static const char *const nulls[] = {
        "os.name",     "os.version",   "os.kernel",  "cpu.model",   "cpu.sockets",     "cpu.cores",
        "cpu.threads", "memory_bytes", "disk.mount", "disk.device", "disk.rotational", "server"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        assert_field_null(fp, nulls[i]);
    assert_field_str(fp, "os.virtualisation", "none");
    assert_int_equal(json_array_size(json_object_get(fp, "gpus")), 0);
    json_decref(fp);
}

static void server_errors(void **state)
{
    (void)state;
    char err[512] = "";
    json_t *fp = NULL;
    tc_env_config cfg = {.root = TREE("wsl2"), .url = "http://127.0.0.1:1", .timeout_s = 1};
    assert_int_equal(tc_env_collect(&cfg, &fp, err, sizeof err), TC_ERR_NET);
    assert_null(fp);
    assert_non_null(strstr(err, "cannot reach http://127.0.0.1:1"));
    cfg.url = "ftp://x";
    assert_int_equal(tc_env_collect(&cfg, &fp, err, sizeof err), TC_ERR_INVALID);
    assert_null(fp);
}

/* ---- diff ------------------------------------------------------------------ */

/* The entry of the diff for field, or NULL. */
static json_t *entry(json_t *diff, const char *field)
{
    size_t i;
    json_t *d;
    json_array_foreach(diff, i, d)
    {
        if (strcmp(json_string_value(json_object_get(d, "field")), field) == 0)
            return d;
    }
    return NULL;
}

static void assert_diff(json_t *diff, const char *field, const char *why_part)
{
    json_t *d = entry(diff, field);
    if (!d)
        fail_msg("no difference named %s", field);
    const char *why = json_string_value(json_object_get(d, "why"));
    if (!why || !strstr(why, why_part))
        fail_msg("%s: why '%s' does not say '%s'", field, why ? why : "(none)", why_part);
}

static json_t *diff_of(json_t *a, json_t *b)
{
    json_t *d = NULL;
    assert_int_equal(tc_fingerprint_diff(a, b, &d), TC_OK);
    assert_true(json_is_array(d));
    return d;
}

static void diff_same_tree_is_clean(void **state)
{
    (void)state;
    const char *trees[] = {TREE("debian-nvidia"), TREE("wsl2"), TREE("ubuntu-amd")};
    for (size_t i = 0; i < 3; i++) {
        json_t *a = collect(trees[i]), *b = collect(trees[i]);
        json_t *d = diff_of(a, b);
        assert_int_equal(json_array_size(d), 0);
        json_decref(d);
        json_decref(a);
        json_decref(b);
    }
}

static void diff_two_trees(void **state)
{
    (void)state;
    json_t *a = collect(TREE("debian-nvidia")), *b = collect(TREE("ubuntu-amd"));
    json_t *d = diff_of(a, b);
    assert_diff(d, "os.name", "operating system");
    assert_diff(d, "os.kernel", "kernel");
    assert_diff(d, "cpu.model", "CPU model");
    assert_diff(d, "cpu.sockets", "sockets");
    assert_diff(d, "memory_bytes", "memory");
    assert_diff(d, "gpus.0.vendor", "GPU vendor");
    assert_diff(d, "gpus.0.name", "GPU model");
    assert_diff(d, "gpus.0.driver", "driver");
    assert_diff(d, "gpus.0.runtime", "CUDA or ROCm");
    assert_null(entry(d, "os.virtualisation")); /* both bare metal */
    assert_null(entry(d, "gpus.count"));
    assert_null(entry(d, "server")); /* neither has one */
    json_t *e = entry(d, "gpus.0.runtime");
    assert_true(json_is_null(json_object_get(e, "a")));
    assert_string_equal(json_string_value(json_object_get(e, "b")), "ROCm 6.1.2");
    json_decref(d);
    json_decref(b);

    b = collect(TREE("wsl2"));
    d = diff_of(a, b);
    assert_diff(d, "os.virtualisation", "WSL2");
    assert_diff(d, "gpus.count", "number of GPUs");
    assert_null(entry(d, "gpus.0.name")); /* only the count, for GPUs one side lacks */
    json_decref(d);
    json_decref(a);
    json_decref(b);
}

static json_t *model(const char *quant, json_int_t ctx)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:I}", "name", "llama3:8b", "family", "llama",
                     "parameter_size", "8.0B", "quantization_level", quant, "context_length", ctx);
}

static json_t *server(const char *version, json_t *m)
{
    return json_pack("{s:s, s:s, s:s, s:b, s:o}", "kind", "Ollama", "version", version, "api",
                     "ollama", "simulated", 0, "model", m);
}

static void diff_server_and_build(void **state)
{
    (void)state;
    json_t *a = collect(TREE("debian-nvidia")), *b = collect(TREE("debian-nvidia"));
    json_object_set_new(a, "server", server("0.5.7", model("Q4_K_M", 8192)));
    json_t *d = diff_of(a, b);
    assert_int_equal(json_array_size(d), 1);
    assert_diff(d, "server", "only one");
    assert_true(json_is_true(json_object_get(entry(d, "server"), "a")));
    assert_true(json_is_false(json_object_get(entry(d, "server"), "b")));
    json_decref(d);

    json_object_set_new(b, "server", server("0.6.0", model("Q8_0", 4096)));
    json_object_set_new(json_object_get(b, "truecost"), "version", json_string("9.9.9"));
    /* 0.5% less memory: a kernel's reservation, not different hardware */
    json_object_set_new(b, "memory_bytes", json_integer(263846752LL * 1024 / 1000 * 995));
    d = diff_of(a, b);
    assert_diff(d, "server.version", "server version");
    assert_diff(d, "server.model.quantization_level", "quantisation");
    assert_diff(d, "server.model.context_length", "context length");
    assert_diff(d, "truecost.version", "truecost version");
    assert_null(entry(d, "server.kind"));
    assert_null(entry(d, "server.model.name"));
    assert_null(entry(d, "memory_bytes"));
    assert_int_equal(json_array_size(d), 4);
    json_decref(d);
    json_decref(a);
    json_decref(b);
}

/* A fingerprint stored by `run --telemetry URL` when no agent answered
 * /env is the client host's (host.role "client"): against the server
 * box's (an agent's, role "server") or a local run's (no host block) that
 * is a difference; two client hosts' are not, though each is warned of. */
static void diff_client_host(void **state)
{
    (void)state;
    json_t *local = collect(TREE("debian-nvidia"));
    json_t *client = collect(TREE("debian-nvidia")), *agent = collect(TREE("debian-nvidia"));
    json_object_set_new(client, "host", json_pack("{s:s, s:s}", "role", "client", "note", "x"));
    json_object_set_new(agent, "host", json_pack("{s:s, s:s}", "role", "server", "source", "u"));
    assert_true(tc_fingerprint_client_host(client));
    assert_false(tc_fingerprint_client_host(agent));
    assert_false(tc_fingerprint_client_host(local));
    assert_false(tc_fingerprint_client_host(NULL));

    json_t *d = diff_of(client, local);
    assert_int_equal(json_array_size(d), 1);
    assert_diff(d, "host.role", "client host");
    assert_string_equal(json_string_value(json_object_get(entry(d, "host.role"), "a")), "client");
    assert_true(json_is_null(json_object_get(entry(d, "host.role"), "b")));
    json_decref(d);
    d = diff_of(agent, client);
    assert_diff(d, "host.role", "not the server box");
    json_decref(d);
    d = diff_of(agent, local);
    assert_int_equal(json_array_size(d), 0);
    json_decref(d);

    /* Both the client's: no difference, and the text warns of each. */
    tc_env_pair p = {client, json_deep_copy(client), NULL, 0};
    assert_int_equal(tc_view_fingerprint_pair_compare(&p), TC_OK);
    assert_int_equal(p.n, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tc_report_env_diff_text(f, &p, "a.json", "b.json");
    fclose(f);
    assert_non_null(strstr(text, "no differences that matter between a.json and b.json\n"
                                 "WARNING A=a.json is the client host's environment, not the "
                                 "server's"));
    assert_non_null(strstr(text, "\nWARNING B=b.json is the client host's"));
    free(text);
    tc_view_fingerprint_pair_free(&p);
    json_decref(local);
    json_decref(agent);
}

/* Text a report function writes, for comparing; the caller frees it. */
static char *captured(FILE *f, char **buf)
{
    assert_int_equal(fclose(f), 0);
    return *buf;
}

/* env --json, read back by tc_env_load: every number as measured (a power
 * limit of 72.123 W must not come back as another double), and the
 * errors --diff says for a file that is not a fingerprint. */
static void saved_fingerprint_reads_back(void **state)
{
    (void)state;
    char path[] = "/tmp/tc-env-fp-XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    json_t *fp = collect(TREE("debian-nvidia")), *back = NULL;
    json_object_set_new(json_array_get(json_object_get(fp, "gpus"), 0), "power_limit_w",
                        json_real(72.123));
    assert_int_equal(tc_report_env_json(f, fp, err, sizeof err), TC_OK);
    fclose(f);
    assert_int_equal(tc_env_load(path, &back, err, sizeof err), TC_OK);
    assert_true(json_equal(fp, back));
    tc_env_pair p = {fp, back, NULL, 0};
    assert_int_equal(tc_view_fingerprint_pair_compare(&p), TC_OK);
    assert_int_equal(p.n, 0);
    char *text = NULL;
    size_t len = 0;
    f = open_memstream(&text, &len);
    tc_report_env_diff_text(f, &p, "A.json", "B.json");
    assert_string_equal(captured(f, &text),
                        "no differences that matter between A.json and B.json\n");
    free(text);
    tc_view_fingerprint_pair_free(&p);
    tc_view_fingerprint_pair_free(NULL);

    f = fopen(path, "w");
    fputs("[1]", f);
    fclose(f);
    assert_int_equal(tc_env_load(path, &back, err, sizeof err), TC_ERR_PARSE);
    assert_null(back);
    assert_non_null(strstr(err, "not a fingerprint"));
    f = fopen(path, "w");
    fputs("{nope", f);
    fclose(f);
    assert_int_equal(tc_env_load(path, &back, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "line 1"));
    assert_non_null(strstr(err, "expected a fingerprint saved with"));
    unlink(path);
}

/* The differences as env --diff prints them: a count, then each field with
 * both values (null as n/a, numbers as JSON) and why it matters. */
static void diff_text(void **state)
{
    (void)state;
    tc_env_pair p = {collect(TREE("debian-nvidia")), collect(TREE("wsl2")), NULL, 0};
    assert_int_equal(tc_view_fingerprint_pair_compare(&p), TC_OK);
    assert_true(p.n > 1);
    assert_int_equal(p.n, json_array_size(p.diffs));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tc_report_env_diff_text(f, &p, "a.json", "b.json");
    captured(f, &text);
    char head[64];
    snprintf(head, sizeof head, "%zu differences between A=a.json and B=b.json:\n", p.n);
    assert_memory_equal(text, head, strlen(head));
    assert_non_null(
        strstr(text, "  os.virtualisation: A none, B wsl2\n    different virtualisation"));
    assert_non_null(strstr(text, "  gpus.count: A 1, B 0\n"));
    free(text);
    tc_view_fingerprint_pair_free(&p);
}

/* The text block: labelled lines, n/a for what the tree lacks. */
static void fingerprint_text(void **state)
{
    (void)state;
    json_t *fp = collect(TREE("debian-nvidia"));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tc_report_env_text(f, fp);
    captured(f, &text);
    assert_non_null(strstr(text, "OS        Debian GNU/Linux 12 (bookworm) (version 12), kernel "
                                 "6.1.0-18-amd64, virtualisation: none\n"));
    assert_non_null(strstr(text, "CPU       AMD EPYC 7763 64-Core Processor: 2 sockets, 4 cores, "
                                 "8 threads\n"));
    assert_non_null(strstr(text, "Server    none\n"));
    free(text);
    tc_env_free(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(debian_nvidia_host),
        cmocka_unit_test(debian_nvidia_gpu_from_pci),
        cmocka_unit_test(gpu_from_telemetry),
        cmocka_unit_test(model_store_disks),
        cmocka_unit_test(wsl2_tree),
        cmocka_unit_test(ubuntu_amd_tree),
        cmocka_unit_test(virtualisation_kinds),
        cmocka_unit_test(virtualisation_pods),
        cmocka_unit_test(empty_tree),
        cmocka_unit_test(server_errors),
        cmocka_unit_test(diff_same_tree_is_clean),
        cmocka_unit_test(diff_two_trees),
        cmocka_unit_test(diff_server_and_build),
        cmocka_unit_test(saved_fingerprint_reads_back),
        cmocka_unit_test(diff_text),
        cmocka_unit_test(diff_client_host),
        cmocka_unit_test(fingerprint_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
