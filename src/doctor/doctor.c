/* The doctor's driver: finds out once what the host has (GPUs on the PCI
 * bus, loaded modules, kernel, WSL, user), then runs the checks of each
 * area in the order a person would fix them. */
#include "doctor.h"

#include <dirent.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor_internal.h"

#define VENDOR_NVIDIA 0x10de
#define VENDOR_AMD 0x1002

char *tc_doctor_path(const tc_doctor_ctx *c, char *buf, size_t len, const char *rel)
{
    if (tc_root_join(buf, len, c->root, rel) != TC_OK)
        buf[0] = '\0'; /* too long: "", which nothing opens */
    return buf;
}

/* 1 when a module is in ROOT/proc/modules or ROOT/sys/module/NAME. */
static int module_loaded(const tc_doctor_ctx *c, const char *name)
{
    char p[1024], line[512];
    snprintf(p, sizeof p, "/sys/module/%s", name);
    if (tc_root_exists(c->root, p))
        return 1; /* also covers modules built into the kernel */
    FILE *f = tc_root_open(c->root, "/proc/modules", "r");
    if (!f)
        return 0;
    int found = 0;
    size_t n = strlen(name);
    while (!found && fgets(line, sizeof line, f))
        found = strncmp(line, name, n) == 0 && line[n] == ' ';
    fclose(f);
    return found;
}

tc_doctor_check *tc_doctor_add(tc_doctor_ctx *c, const char *id, const char *title)
{
    tc_doctor_report *r = c->out;
    if (r->n >= TC_DOCTOR_MAX_CHECKS)
        return NULL;
    tc_doctor_check *k = &r->checks[r->n++];
    memset(k, 0, sizeof *k);
    snprintf(k->id, sizeof k->id, "%s", id);
    snprintf(k->title, sizeof k->title, "%s", title);
    k->status = TC_DOCTOR_OK;
    return k;
}

static void append(char *dst, size_t cap, const char *sep, const char *fmt, va_list ap)
{
    size_t used = strlen(dst);
    if (used && sep && used < cap)
        used += (size_t)snprintf(dst + used, cap - used, "%s", sep);
    if (used < cap)
        vsnprintf(dst + used, cap - used, fmt, ap);
}

void tc_doctor_evidence(tc_doctor_check *k, const char *fmt, ...)
{
    if (!k)
        return;
    va_list ap;
    va_start(ap, fmt);
    append(k->evidence, sizeof k->evidence, "; ", fmt, ap);
    va_end(ap);
}

void tc_doctor_fix(tc_doctor_check *k, const char *fmt, ...)
{
    if (!k)
        return;
    va_list ap;
    va_start(ap, fmt);
    append(k->fix, sizeof k->fix, " ", fmt, ap);
    va_end(ap);
}

void tc_doctor_set_status(tc_doctor_check *k, tc_doctor_status s)
{
    if (k)
        k->status = s;
}

/* Display controllers (class 0x03xxxx) and processing accelerators
 * (0x12xxxx, e.g. AMD Instinct): not the GPUs' HDMI audio functions. */
static int is_gpu_class(const char *cls)
{
    return strncmp(cls, "0x03", 4) == 0 || strncmp(cls, "0x12", 4) == 0;
}

static void add_pci(char *list, size_t cap, int *n, const char *addr)
{
    size_t used = strlen(list);
    snprintf(list + used, cap - used, "%s%s", used ? " " : "", addr);
    (*n)++;
}

static void scan_pci(tc_doctor_ctx *c)
{
    char p[1024];
    DIR *d = opendir(tc_doctor_path(c, p, sizeof p, "/sys/bus/pci/devices"));
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char rel[512], vendor[16], cls[16];
        if (e->d_name[0] == '.')
            continue;
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/vendor", e->d_name);
        if (tc_root_read(c->root, rel, vendor, sizeof vendor, NULL) != TC_OK)
            continue;
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/class", e->d_name);
        if (tc_root_read(c->root, rel, cls, sizeof cls, NULL) != TC_OK || !is_gpu_class(cls))
            continue;
        long v = strtol(vendor, NULL, 16);
        if (v == VENDOR_NVIDIA)
            add_pci(c->nv_pci, sizeof c->nv_pci, &c->n_nv, e->d_name);
        else if (v == VENDOR_AMD)
            add_pci(c->amd_pci, sizeof c->amd_pci, &c->n_amd, e->d_name);
    }
    closedir(d);
}

static void find_user(tc_doctor_ctx *c)
{
    const char *u = c->cfg->user;
    if (!u) {
        struct passwd *pw = getpwuid(geteuid());
        u = pw ? pw->pw_name : "";
    }
    snprintf(c->user, sizeof c->user, "%s", u);
}

static void discover(tc_doctor_ctx *c)
{
    char text[1024];
    find_user(c);
    if (c->cfg->kernel_release)
        snprintf(c->kernel, sizeof c->kernel, "%s", c->cfg->kernel_release);
    else if (tc_root_read(c->root, "/proc/sys/kernel/osrelease", c->kernel, sizeof c->kernel,
                          NULL) != TC_OK)
        c->kernel[0] = '\0';
    c->wsl = tc_root_read(c->root, "/proc/version", text, sizeof text, NULL) == TC_OK &&
             (strstr(text, "microsoft") || strstr(text, "Microsoft"));
    scan_pci(c);
    /* Under WSL2 the GPU is not on the PCI bus: the Windows driver's
     * libraries in /usr/lib/wsl/lib, and ROCm for WSL, tell the vendor. */
    if (c->wsl && !c->n_nv && tc_root_exists(c->root, "/usr/lib/wsl/lib/libnvidia-ml.so.1"))
        add_pci(c->nv_pci, sizeof c->nv_pci, &c->n_nv, "(WSL2 /usr/lib/wsl/lib/libnvidia-ml.so.1)");
    if (c->wsl && !c->n_amd && tc_root_exists(c->root, "/opt/rocm/.info/version"))
        add_pci(c->amd_pci, sizeof c->amd_pci, &c->n_amd, "(WSL2 /opt/rocm)");
    c->nv_loaded = module_loaded(c, "nvidia");
    c->nouveau_loaded = module_loaded(c, "nouveau");
    c->amd_loaded = module_loaded(c, "amdgpu");
}

static void check_gpus(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "gpu.found", "GPUs found");
    if (c->n_nv)
        tc_doctor_evidence(k, "NVIDIA (vendor 0x10de): %s", c->nv_pci);
    if (c->n_amd)
        tc_doctor_evidence(k, "AMD (vendor 0x1002): %s", c->amd_pci);
    if (!c->n_nv && !c->n_amd) { /* nothing wrong on a CPU host, but no "ok GPUs found" either */
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "no NVIDIA or AMD GPU in /sys/bus/pci/devices: CPU only");
    }
    if (c->kernel[0])
        tc_doctor_evidence(k, "kernel %s", c->kernel);
}

static const char *env_default(const char *name)
{
    return getenv(name);
}

static int overall(const tc_doctor_report *r)
{
    int s = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->checks[i].status == TC_DOCTOR_FAIL)
            return 2;
        if (r->checks[i].status == TC_DOCTOR_WARN)
            s = 1;
    }
    return s;
}

tc_err tc_doctor_run(const tc_doctor_config *cfg, tc_doctor_report *out, char *err, size_t errlen)
{
    static const tc_doctor_config none;
    tc_doctor_ctx c;
    struct stat st;
    memset(&c, 0, sizeof c);
    c.cfg = cfg ? cfg : &none;
    c.root = c.cfg->root && c.cfg->root[0] ? c.cfg->root : "/";
    c.env = c.cfg->env ? c.cfg->env : env_default;
    c.out = out;
    memset(out, 0, sizeof *out);
    if (stat(c.root, &st) != 0 || !S_ISDIR(st.st_mode))
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "root '%s' is not a directory", c.root);
    discover(&c);
    check_gpus(&c);
    tc_doctor_check_nvidia(&c);
    tc_doctor_check_amd(&c);
    tc_doctor_check_wsl(&c);
    tc_doctor_check_cpu(&c);
    tc_doctor_check_server(&c);
    tc_doctor_check_truecost(&c);
    out->status = overall(out);
    return TC_OK;
}

const char *tc_doctor_status_name(tc_doctor_status s)
{
    switch (s) {
    case TC_DOCTOR_OK:
        return "ok";
    case TC_DOCTOR_WARN:
        return "warn";
    case TC_DOCTOR_FAIL:
        return "fail";
    case TC_DOCTOR_SKIP:
        return "skip";
    }
    return "?";
}

const tc_doctor_check *tc_doctor_find(const tc_doctor_report *r, const char *id)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->checks[i].id, id) == 0)
            return &r->checks[i];
    return NULL;
}
