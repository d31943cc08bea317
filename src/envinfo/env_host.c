/* The host part of the fingerprint: OS, kernel, virtualisation, CPU and
 * memory, all read from files under a root directory. */
#define _GNU_SOURCE /* strcasestr */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "env_internal.h"

int tc_env_read(const char *root, const char *rel, char *buf, size_t len)
{
    return tc_root_read(root, rel, buf, len, NULL) == TC_OK && buf[0] ? 0 : -1;
}

json_t *tc_env_str(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

static int is_root(const char *root)
{
    return strcmp(root, "/") == 0;
}

/* ---- OS ------------------------------------------------------------------ */

/* The value of KEY= in os-release text, unquoted, into out; "" when absent. */
static void os_release_value(const char *text, const char *key, char *out, size_t len)
{
    size_t klen = strlen(key);
    out[0] = '\0';
    const char *next = text;
    while (next && *next) {
        const char *line = next, *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL; /* never arithmetic on a NULL pointer */
        if (strncmp(line, key, klen) != 0 || line[klen] != '=')
            continue;
        const char *v = line + klen + 1;
        size_t n = strcspn(v, "\n");
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v++;
            n -= 2;
        }
        snprintf(out, len, "%.*s", (int)n, v);
        return;
    }
}

static json_t *kernel_release(const char *root)
{
    char buf[256];
    struct utsname u;
    if (is_root(root))
        return uname(&u) == 0 ? tc_env_str(u.release) : json_null();
    return tc_env_read(root, "/proc/sys/kernel/osrelease", buf, sizeof buf) == 0 ? tc_env_str(buf)
                                                                                 : json_null();
}

/* "container=" among the NUL-separated variables of PID 1's environment. */
static int pid1_in_container(const char *root)
{
    char env[16384];
    FILE *f = tc_root_open(root, "/proc/1/environ", "r");
    if (!f)
        return 0; /* only root may read it: not knowing is not a container */
    size_t n = fread(env, 1, sizeof env - 1, f);
    fclose(f);
    env[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(env + i) + 1)
        if (strncmp(env + i, "container=", 10) == 0)
            return 1;
    return 0;
}

/* 1 when one component of a cgroup path is a container runtime's:
 * "/docker/ID", "docker-ID.scope", "kubepods.slice", "/kubepods/...",
 * "cri-containerd-ID.scope", "crio-ID.scope", "libpod-ID.scope". A host
 * daemon's own unit (docker.service, containerd.service) is not one. */
static int cgroup_names_runtime(const char *path)
{
    static const char *const words[] = {"kubepods", "docker",         "containerd",
                                        "crio",     "cri-containerd", "libpod"};
    while (*path) {
        size_t n = strcspn(path, "/\n");
        int service = n >= 8 && strncmp(path + n - 8, ".service", 8) == 0;
        for (size_t w = 0; w < sizeof words / sizeof words[0] && !service; w++) {
            size_t k = strlen(words[w]);
            if (k <= n && strncmp(path, words[w], k) == 0 &&
                (k == n || path[k] == '-' || path[k] == '.'))
                return 1;
        }
        path += n + (path[n] != '\0');
    }
    return 0;
}

/* Each line of /proc/PID/cgroup is "ID:CONTROLLERS:PATH" (v1) or "0::PATH"
 * (v2). Under a cgroup namespace the path is "/" and says nothing. */
static int cgroup_in_container(const char *root, const char *rel)
{
    FILE *f = tc_root_open(root, rel, "r");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        const char *path = strchr(line, ':');
        path = path ? strchr(path + 1, ':') : NULL;
        found = path && cgroup_names_runtime(path + 1);
    }
    fclose(f);
    return found;
}

/* 1 when the last mount of "/" in a mountinfo is an overlay: the image
 * layers of Docker, containerd and CRI-O. Fields: "ID PARENT M:m ROOT
 * MOUNT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER". */
static int overlay_root(const char *root, const char *rel)
{
    FILE *f = tc_root_open(root, rel, "r");
    if (!f)
        return 0;
    char *line = NULL, mnt[8], fstype[32];
    size_t cap = 0;
    int overlay = 0;
    while (getline(&line, &cap, f) > 0) {
        const char *dash = strstr(line, " - ");
        if (sscanf(line, "%*s %*s %*s %*s %7s", mnt) == 1 && strcmp(mnt, "/") == 0 && dash &&
            sscanf(dash + 3, "%31s", fstype) == 1)
            overlay = strcmp(fstype, "overlay") == 0; /* later mounts cover earlier ones */
    }
    free(line);
    fclose(f);
    return overlay;
}

/* A Kubernetes or containerd pod has no /.dockerenv, and its PID 1 is the
 * workload, which sets no container=: the cgroup path, the overlay root or
 * the service account secrets tell instead. */
static int in_container(const char *root)
{
    return tc_root_exists(root, "/.dockerenv") || tc_root_exists(root, "/run/.containerenv") ||
           pid1_in_container(root) || cgroup_in_container(root, "/proc/1/cgroup") ||
           cgroup_in_container(root, "/proc/self/cgroup") ||
           overlay_root(root, "/proc/self/mountinfo") || overlay_root(root, "/proc/1/mountinfo") ||
           tc_root_exists(root, "/var/run/secrets/kubernetes.io") ||
           tc_root_exists(root, "/run/secrets/kubernetes.io");
}

static int dmi_names_hypervisor(const char *root)
{
    static const char *const vendors[] = {"QEMU",      "KVM",        "VMware", "Xen",
                                          "Microsoft", "Amazon",     "Google", "Firecracker",
                                          "innotek",   "VirtualBox", "Bochs"};
    static const char *const files[] = {"/sys/class/dmi/id/sys_vendor",
                                        "/sys/class/dmi/id/product_name"};
    char buf[256];
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        if (tc_env_read(root, files[f], buf, sizeof buf) < 0)
            continue;
        for (size_t v = 0; v < sizeof vendors / sizeof vendors[0]; v++)
            if (strcasestr(buf, vendors[v]))
                return 1;
    }
    return 0;
}

/* WSL2 first: it also looks like a Microsoft VM and may run containers. */
static const char *virtualisation(const char *root)
{
    char version[1024];
    if (tc_env_read(root, "/proc/version", version, sizeof version) == 0 &&
        strcasestr(version, "microsoft"))
        return "wsl2";
    if (in_container(root))
        return "container";
    if (dmi_names_hypervisor(root))
        return "vm";
    return "none";
}

json_t *tc_env_os(const char *root)
{
    char text[8192], name[256], version[128];
    name[0] = version[0] = '\0';
    if (tc_env_read(root, "/etc/os-release", text, sizeof text) == 0 ||
        tc_env_read(root, "/usr/lib/os-release", text, sizeof text) == 0) {
        os_release_value(text, "PRETTY_NAME", name, sizeof name);
        if (!name[0])
            os_release_value(text, "NAME", name, sizeof name);
        os_release_value(text, "VERSION_ID", version, sizeof version);
    }
    return json_pack("{s:o, s:o, s:o, s:s}", "name", tc_env_str(name), "version",
                     tc_env_str(version), "kernel", kernel_release(root), "virtualisation",
                     virtualisation(root));
}

/* ---- CPU and memory -------------------------------------------------------- */

#define MAX_CPUS 4096

typedef struct cpu_scan {
    char model[256];
    int threads;
    int n_pkg, n_core;
    long pkg[MAX_CPUS];     /* distinct physical ids */
    long core[MAX_CPUS];    /* distinct (physical id << 20 | core id) */
    long cur_pkg, cur_core; /* of the processor being read; -1 unknown */
} cpu_scan;

static void add_distinct(long *set, int *n, long v)
{
    for (int i = 0; i < *n; i++)
        if (set[i] == v)
            return;
    if (*n < MAX_CPUS)
        set[(*n)++] = v;
}

/* Ends one "processor" block: counts its package and core. */
static void end_processor(cpu_scan *s)
{
    if (s->cur_pkg >= 0)
        add_distinct(s->pkg, &s->n_pkg, s->cur_pkg);
    if (s->cur_pkg >= 0 && s->cur_core >= 0)
        add_distinct(s->core, &s->n_core, (s->cur_pkg << 20) | s->cur_core);
    s->cur_pkg = s->cur_core = -1;
}

static void cpu_line(cpu_scan *s, const char *key, size_t klen, const char *val)
{
#define KEY(k) (klen == sizeof k - 1 && strncmp(key, k, klen) == 0)
    if (KEY("processor")) {
        end_processor(s);
        s->threads++;
    } else if (KEY("model name") && !s->model[0]) {
        snprintf(s->model, sizeof s->model, "%s", val);
    } else if (KEY("physical id")) {
        s->cur_pkg = strtol(val, NULL, 10);
    } else if (KEY("core id")) {
        s->cur_core = strtol(val, NULL, 10) & 0xfffff;
    }
#undef KEY
}

static void scan_cpuinfo(FILE *f, cpu_scan *s)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        size_t klen = (size_t)(colon - line);
        while (klen > 0 && isspace((unsigned char)line[klen - 1]))
            klen--; /* "model name\t: ..." */
        const char *val = colon + 1;
        while (*val == ' ')
            val++;
        cpu_line(s, line, klen, val);
    }
    end_processor(s);
    free(line);
}

/* Sockets and cores only when cpuinfo names them (x86 does; many ARM and
 * some VM kernels do not): counting processors instead would be a guess. */
json_t *tc_env_cpu(const char *root)
{
    cpu_scan *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cur_pkg = s->cur_core = -1;
    FILE *f = tc_root_open(root, "/proc/cpuinfo", "r");
    if (f) {
        scan_cpuinfo(f, s);
        fclose(f);
    }
    json_t *cpu = json_pack("{s:o, s:o, s:o, s:o}", "model", tc_env_str(s->model), "sockets",
                            s->n_pkg ? json_integer(s->n_pkg) : json_null(), "cores",
                            s->n_core ? json_integer(s->n_core) : json_null(), "threads",
                            s->threads ? json_integer(s->threads) : json_null());
    free(s);
    return cpu;
}

json_t *tc_env_memory(const char *root)
{
    FILE *f = tc_root_open(root, "/proc/meminfo", "r");
    if (!f)
        return json_null();
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb > 0 ? json_integer((json_int_t)kb * 1024) : json_null();
}
