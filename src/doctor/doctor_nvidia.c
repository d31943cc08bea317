/* NVIDIA checks, in the order the usual failure chain goes: the module is
 * not loaded (not rebooted, DKMS not built for this kernel, Secure Boot
 * refused it, nouveau holds the card), then device nodes, NVML, and a
 * user-space library newer than the loaded module. */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor_internal.h"

#define EFI_SECUREBOOT "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18

/* 1 enabled, 0 disabled, -1 not a UEFI Secure Boot machine (or unreadable).
 * The efivar is 4 bytes of attributes, then the value byte. */
static int secure_boot(const tc_doctor_ctx *c)
{
    unsigned char b[5];
    FILE *f = tc_root_open(c->root, EFI_SECUREBOOT, "rb");
    if (!f)
        return -1;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return n == sizeof b ? b[4] == 1 : -1;
}

/* Lists "VERSION: KERNEL, KERNEL" of /var/lib/dkms/nvidia into list and
 * returns 1 when one version has a build for the running kernel, 0 when
 * none does, -1 when nvidia is not managed by DKMS. */
static int dkms_state(const tc_doctor_ctx *c, char *list, size_t cap)
{
    char p[1024];
    int built = 0;
    list[0] = '\0';
    DIR *d = opendir(tc_doctor_path(c, p, sizeof p, "/var/lib/dkms/nvidia"));
    if (!d)
        return -1;
    struct dirent *v;
    while ((v = readdir(d))) {
        char sub[1300];
        /* Version directories start with a digit; "kernel-*" are links. */
        if (v->d_name[0] < '0' || v->d_name[0] > '9')
            continue;
        size_t used = strlen(list);
        snprintf(list + used, cap - used, "%s%s:", used ? "; " : "", v->d_name);
        snprintf(sub, sizeof sub, "%s/%s", p, v->d_name);
        DIR *kd = opendir(sub);
        struct dirent *k;
        int any = 0;
        while (kd && (k = readdir(kd))) {
            if (k->d_name[0] == '.' || strcmp(k->d_name, "source") == 0 ||
                strcmp(k->d_name, "build") == 0)
                continue;
            used = strlen(list);
            snprintf(list + used, cap - used, " %s", k->d_name);
            any = 1;
            built |= c->kernel[0] && strcmp(k->d_name, c->kernel) == 0;
        }
        if (kd)
            closedir(kd);
        if (!any) {
            used = strlen(list);
            snprintf(list + used, cap - used, " no kernel built");
        }
    }
    closedir(d);
    return built;
}

static void check_dkms(tc_doctor_ctx *c)
{
    tc_doctor_check *k =
        tc_doctor_add(c, "nvidia.dkms", "NVIDIA DKMS module built for the running kernel");
    char list[512];
    int st = dkms_state(c, list, sizeof list);
    if (st < 0) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "no /var/lib/dkms/nvidia: the driver is not built by DKMS");
        return;
    }
    tc_doctor_evidence(k, "running kernel %s; /var/lib/dkms/nvidia: %s",
                       c->kernel[0] ? c->kernel : "unknown", list[0] ? list : "empty");
    if (st == 1 || c->nv_loaded)
        return;
    tc_doctor_set_status(k, TC_DOCTOR_FAIL);
    tc_doctor_fix(k,
                  "DKMS has not built nvidia for kernel %s (usually after a kernel upgrade): "
                  "sudo dkms autoinstall (check with: dkms status), or reinstall the driver "
                  "(sudo apt install --reinstall nvidia-driver-XXX); then reboot",
                  c->kernel);
}

static void check_module(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "nvidia.module", "NVIDIA kernel module loaded");
    tc_doctor_evidence(k, "PCI %s vendor 0x10de", c->nv_pci);
    if (c->nv_loaded) {
        tc_doctor_evidence(k, "nvidia in /proc/modules");
        return;
    }
    tc_doctor_set_status(k, TC_DOCTOR_FAIL);
    tc_doctor_evidence(
        k, "/proc/modules has no nvidia (nvidia-smi: \"couldn't communicate with the NVIDIA "
           "driver\")");
    tc_doctor_fix(
        k, "if the driver was just installed, reboot; if not installed: sudo ubuntu-drivers "
           "devices, then sudo apt install nvidia-driver-XXX (the recommended one) and reboot; "
           "see the DKMS, Secure Boot and nouveau checks for why a module does not load");
}

static void check_nouveau(tc_doctor_ctx *c)
{
    tc_doctor_check *k =
        tc_doctor_add(c, "nvidia.nouveau", "nouveau (open-source driver) not loaded");
    if (!c->nouveau_loaded) {
        tc_doctor_evidence(k, "/proc/modules has no nouveau");
        return;
    }
    tc_doctor_set_status(k, TC_DOCTOR_FAIL);
    tc_doctor_evidence(k, "nouveau in /proc/modules: it holds the GPU, so nvidia cannot bind");
    tc_doctor_fix(k, "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee "
                     "/etc/modprobe.d/blacklist-nouveau.conf; sudo update-initramfs -u; add "
                     "nouveau.modeset=0 to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub; sudo "
                     "update-grub; reboot");
}

/* What the module file says about its signature. */
enum { MOD_UNSIGNED, MOD_SIGNED, MOD_COMPRESSED, MOD_UNREADABLE };

/* Bounds the search of /lib/modules/KERNEL (a few thousand entries on a
 * distribution kernel): a huge or looping tree must not stall the doctor. */
#define KO_MAX_DEPTH 6
#define KO_MAX_ENTRIES 50000

typedef struct ko_search {
    int budget;    /* directory entries still to look at */
    char rel[768]; /* the module found, relative to the root */
} ko_search;

static int is_nvidia_ko(const char *name)
{
    static const char *const names[] = {"nvidia.ko", "nvidia.ko.xz", "nvidia.ko.zst",
                                        "nvidia.ko.gz"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* Depth-first search of rel (under the root) for an nvidia module. Only the
 * module itself may be a link: linked directories (build/, source/) lead to
 * headers, and outside --root. */
static int search_ko(const tc_doctor_ctx *c, const char *rel, int depth, ko_search *s)
{
    char p[1024];
    DIR *d = opendir(tc_doctor_path(c, p, sizeof p, rel));
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && s->budget-- > 0 && (e = readdir(d))) {
        char sub[768];
        struct stat st;
        if (e->d_name[0] == '.' ||
            snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name) >= (int)sizeof sub)
            continue;
        tc_doctor_path(c, p, sizeof p, sub);
        if (is_nvidia_ko(e->d_name) && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            snprintf(s->rel, sizeof s->rel, "%s", sub);
            found = 1;
        } else if (depth > 0 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            found = search_ko(c, sub, depth - 1, s);
        }
    }
    closedir(d);
    return found;
}

/* The nvidia module for the running kernel into s->rel: the DKMS build
 * (/var/lib/dkms/nvidia/VER/KERNEL/ARCH/module/) first, else anything under
 * /lib/modules/KERNEL (a distribution's prebuilt, signed package). */
static int find_module(const tc_doctor_ctx *c, ko_search *s)
{
    char p[1024], rel[512];
    s->budget = KO_MAX_ENTRIES;
    if (!c->kernel[0])
        return 0;
    DIR *d = opendir(tc_doctor_path(c, p, sizeof p, "/var/lib/dkms/nvidia"));
    struct dirent *v;
    int found = 0;
    while (d && !found && (v = readdir(d))) {
        if (!isdigit((unsigned char)v->d_name[0]))
            continue; /* version directories; "kernel-*" are links */
        snprintf(rel, sizeof rel, "/var/lib/dkms/nvidia/%s/%s", v->d_name, c->kernel);
        found = search_ko(c, rel, 3, s);
    }
    if (d)
        closedir(d);
    snprintf(rel, sizeof rel, "/lib/modules/%s", c->kernel);
    return found || search_ko(c, rel, KO_MAX_DEPTH, s);
}

/* A signed module ends with the kernel's trailer (scripts/sign-file). It
 * sits inside the compression of a .ko.xz/.zst/.gz, so those cannot be
 * told without unpacking them. */
static int module_signature(const tc_doctor_ctx *c, const char *rel)
{
    static const char magic[] = "~Module signature appended~\n";
    char tail[sizeof magic - 1];
    size_t n = strlen(rel);
    if (n < 3 || strcmp(rel + n - 3, ".ko") != 0)
        return MOD_COMPRESSED;
    FILE *f = tc_root_open(c->root, rel, "rb");
    if (!f)
        return MOD_UNREADABLE;
    int sig = MOD_UNSIGNED; /* shorter than the trailer: no room for one */
    if (fseek(f, -(long)sizeof tail, SEEK_END) == 0) {
        if (fread(tail, 1, sizeof tail, f) != sizeof tail)
            sig = MOD_UNREADABLE;
        else if (memcmp(tail, magic, sizeof tail) == 0)
            sig = MOD_SIGNED;
    }
    fclose(f);
    return sig;
}

/* No module to judge: Secure Boot is not what stops nvidia (yet). */
static void secure_boot_no_module(const tc_doctor_ctx *c, tc_doctor_check *k)
{
    const char *kern = c->kernel;
    tc_doctor_set_status(k, TC_DOCTOR_WARN);
    if (!kern[0])
        tc_doctor_evidence(
            k, "nvidia not loaded; the running kernel's release is unknown (no "
               "/proc/sys/kernel/osrelease), so its nvidia module cannot be looked for");
    else
        tc_doctor_evidence(
            k,
            "nvidia not loaded, but no nvidia module exists for kernel %s (none in "
            "/var/lib/dkms/nvidia/*/%s or /lib/modules/%s): Secure Boot has nothing to refuse",
            kern, kern, kern);
    tc_doctor_fix(k,
                  "see the module and DKMS checks: install the driver or build it for this kernel "
                  "first; under Secure Boot it must then be signed with an enrolled key (check: "
                  "modinfo -F signer nvidia; empty means unsigned)");
}

/* Secure Boot is on and nvidia is not loaded: blame it only when the
 * module that would load is unsigned. */
static void secure_boot_module(const tc_doctor_ctx *c, tc_doctor_check *k)
{
    ko_search s;
    if (!find_module(c, &s)) {
        secure_boot_no_module(c, k);
        return;
    }
    int sig = module_signature(c, s.rel);
    if (sig == MOD_UNSIGNED) {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_evidence(
            k, "nvidia not loaded: %s has no signature, and an unsigned module is refused", s.rel);
        tc_doctor_fix(k, "sign the module: sudo mokutil --import /var/lib/shim-signed/mok/MOK.der, "
                         "reboot and enrol the key in the blue MOK manager screen (DKMS then signs "
                         "nvidia with it); or disable Secure Boot in the firmware setup. Check: "
                         "mokutil --sb-state");
        return;
    }
    tc_doctor_set_status(k, TC_DOCTOR_WARN);
    if (sig == MOD_SIGNED)
        tc_doctor_evidence(
            k, "nvidia not loaded; %s is signed: refused only if its key is not enrolled", s.rel);
    else
        tc_doctor_evidence(k, "nvidia not loaded; %s is %s: whether it is signed cannot be told",
                           s.rel, sig == MOD_COMPRESSED ? "compressed" : "unreadable");
    tc_doctor_fix(
        k, "if sudo modprobe nvidia fails, look in sudo dmesg for \"Key was rejected by "
           "service\": the key that signed it is not enrolled. Enrol it: sudo mokutil --import "
           "/var/lib/shim-signed/mok/MOK.der (the DKMS key; another signer's .der otherwise), "
           "reboot and enrol it in the blue MOK manager screen; or disable Secure Boot");
}

static void check_secure_boot(tc_doctor_ctx *c)
{
    tc_doctor_check *k =
        tc_doctor_add(c, "nvidia.secureboot", "Secure Boot allows the NVIDIA module");
    int sb = secure_boot(c);
    if (sb < 0) {
        tc_doctor_evidence(k, "no readable SecureBoot efivar: not a UEFI Secure Boot system");
        return;
    }
    tc_doctor_evidence(k, "Secure Boot %s (efivars SecureBoot byte 5 = %d)",
                       sb ? "enabled" : "disabled", sb);
    if (!sb)
        return;
    if (c->nv_loaded) {
        tc_doctor_evidence(k, "the nvidia module is loaded, so it is signed with an enrolled key");
        return;
    }
    if (c->nouveau_loaded) {
        /* nouveau is the distribution's signed module: it loads, and it is
         * what keeps nvidia off the GPU, whatever nvidia's signature. */
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k,
                           "nouveau holds the GPU: see the nouveau check, then run doctor again");
        return;
    }
    secure_boot_module(c, k);
}

static void check_devnodes(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "nvidia.devnodes", "/dev/nvidia* device nodes present");
    if (!c->nv_loaded) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "the nvidia module is not loaded");
        return;
    }
    int n0 = tc_root_exists(c->root, "/dev/nvidia0"),
        ctl = tc_root_exists(c->root, "/dev/nvidiactl");
    tc_doctor_evidence(k, "/dev/nvidia0 %s, /dev/nvidiactl %s", n0 ? "present" : "missing",
                       ctl ? "present" : "missing");
    if (n0 && ctl)
        return;
    tc_doctor_set_status(k, TC_DOCTOR_FAIL);
    tc_doctor_fix(k,
                  "create them: sudo nvidia-modprobe -c 0 -u (or reboot); in a container, start it "
                  "with the GPUs passed in (docker run --gpus all, NVIDIA Container Toolkit)");
}

/* The loaded module's version into ver and where it was read into *src:
 * /sys/module/nvidia/version holds just "550.54.15"; else /proc's "NVRM
 * version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue ..." or "...
 * Open Kernel Module for x86_64  550.54.15  Release Build ...", where the
 * version is the first word after "Kernel Module" that starts with a digit. */
static int module_version(const tc_doctor_ctx *c, char *ver, size_t len, const char **src)
{
    char text[1024];
    *src = "/sys/module/nvidia/version";
    if (tc_root_read(c->root, *src, ver, len, NULL) == TC_OK && isdigit((unsigned char)ver[0]))
        return 0;
    *src = "/proc/driver/nvidia/version";
    if (tc_root_read(c->root, *src, text, sizeof text, NULL) != TC_OK)
        return -1;
    const char *s = strstr(text, "Kernel Module");
    if (!s)
        return -1;
    s += strlen("Kernel Module");
    for (;;) {
        s += strspn(s, " \t");
        size_t n = strcspn(s, " \t\n");
        if (n == 0)
            return -1; /* end of the line: no version on it */
        if (isdigit((unsigned char)*s) && n < len) {
            memcpy(ver, s, n);
            ver[n] = '\0';
            return 0;
        }
        s += n;
    }
}

static void mismatch_fix(tc_doctor_check *k)
{
    tc_doctor_set_status(k, TC_DOCTOR_FAIL);
    tc_doctor_fix(
        k, "the driver was upgraded but the old module is still loaded: reboot (or, with "
           "nothing using the GPU: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && "
           "sudo modprobe nvidia)");
}

static void check_nvml(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "nvidia.nvml", "NVML (libnvidia-ml) loads");
    tc_doctor_check *v =
        tc_doctor_add(c, "nvidia.version", "NVIDIA driver and library versions match");
    if (!c->nv_loaded) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_set_status(v, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "the nvidia module is not loaded");
        tc_doctor_evidence(v, "the nvidia module is not loaded");
        return;
    }
    tc_doctor_nvml_fn fn = c->cfg->nvml_version ? c->cfg->nvml_version : tc_doctor_nvml_version;
    const char *lib = c->cfg->nvml_lib ? c->cfg->nvml_lib : "libnvidia-ml.so.1";
    char lv[96] = "", kv[96] = "", err[512] = "";
    const char *kv_src;
    tc_err rc = fn(c->cfg->nvml_lib, lv, sizeof lv, err, sizeof err);
    int have_kv = module_version(c, kv, sizeof kv, &kv_src) == 0;
    if (have_kv)
        tc_doctor_evidence(v, "kernel module %s (%s)", kv, kv_src);
    if (rc == TC_ERR_NOTFOUND) {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_evidence(k, "cannot load %s: %s", lib, err);
        tc_doctor_fix(k, "install the driver's user-space part (Ubuntu: sudo apt install "
                         "libnvidia-compute-XXX / nvidia-utils-XXX matching the driver), or pass "
                         "--nvml-lib PATH; without NVML truecost falls back to nvidia-smi");
        tc_doctor_set_status(v, TC_DOCTOR_SKIP);
        tc_doctor_evidence(v, "NVML not loadable");
        return;
    }
    if (rc == TC_ERR_INVALID) {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_evidence(k, "%s: %s", lib, err);
        tc_doctor_fix(k, "see the version check");
        tc_doctor_evidence(v, "NVML: %s", err);
        mismatch_fix(v);
        return;
    }
    if (rc != TC_OK) {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_evidence(k, "%s: %s", lib, err);
        tc_doctor_fix(k, "run nvidia-smi for the driver's own message; reinstall the driver if it "
                         "fails too");
        tc_doctor_set_status(v, TC_DOCTOR_SKIP);
        return;
    }
    tc_doctor_evidence(k, "%s: driver %s", lib, lv);
    tc_doctor_evidence(v, "NVML library %s", lv);
    if (!have_kv) {
        tc_doctor_set_status(v, TC_DOCTOR_SKIP);
        tc_doctor_evidence(
            v, "no version in /sys/module/nvidia/version or /proc/driver/nvidia/version");
    } else if (strcmp(kv, lv) != 0) {
        mismatch_fix(v);
    }
}

void tc_doctor_check_nvidia(tc_doctor_ctx *c)
{
    static const char *const ids[][2] = {
        {"nvidia.module", "NVIDIA kernel module loaded"},
        {"nvidia.dkms", "NVIDIA DKMS module built for the running kernel"},
        {"nvidia.secureboot", "Secure Boot allows the NVIDIA module"},
        {"nvidia.nouveau", "nouveau (open-source driver) not loaded"},
        {"nvidia.devnodes", "/dev/nvidia* device nodes present"},
        {"nvidia.nvml", "NVML (libnvidia-ml) loads"},
        {"nvidia.version", "NVIDIA driver and library versions match"},
    };
    /* Under WSL2 there is no Linux NVIDIA driver: the WSL checks cover it. */
    if (!c->n_nv || c->wsl) {
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
            tc_doctor_check *k = tc_doctor_add(c, ids[i][0], ids[i][1]);
            tc_doctor_set_status(k, TC_DOCTOR_SKIP);
            tc_doctor_evidence(k, c->wsl && c->n_nv ? "WSL2: the Windows driver serves the GPU"
                                                    : "no NVIDIA GPU");
        }
        return;
    }
    check_module(c);
    check_dkms(c);
    check_secure_boot(c);
    check_nouveau(c);
    check_devnodes(c);
    check_nvml(c);
}

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_ver_fn)(char *, unsigned);
typedef const char *(*nvml_str_fn)(int);

tc_err tc_doctor_nvml_version(const char *lib, char *ver, size_t len, char *err, size_t errlen)
{
    tc_err rc = TC_OK;
    void *h = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h && !lib)
        h = dlopen("libnvidia-ml.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s", dlerror());
    nvml_void_fn init = (nvml_void_fn)dlsym(h, "nvmlInit_v2");
    if (!init)
        init = (nvml_void_fn)dlsym(h, "nvmlInit");
    nvml_void_fn shut = (nvml_void_fn)dlsym(h, "nvmlShutdown");
    nvml_ver_fn getv = (nvml_ver_fn)dlsym(h, "nvmlSystemGetDriverVersion");
    nvml_str_fn estr = (nvml_str_fn)dlsym(h, "nvmlErrorString");
    if (!init || !getv) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "not an NVML library (no nvmlInit)");
        goto done;
    }
    int r = init();
    if (r != 0) {
        rc = tc_fail(err, errlen,
                     r == NVML_ERROR_LIB_RM_VERSION_MISMATCH ? TC_ERR_INVALID : TC_ERR_IO,
                     "nvmlInit: %s (%d)", estr ? estr(r) : "error", r);
        goto done;
    }
    r = getv(ver, (unsigned)len);
    if (r != 0)
        rc = tc_fail(err, errlen, TC_ERR_IO, "nvmlSystemGetDriverVersion: %s (%d)",
                     estr ? estr(r) : "error", r);
    if (shut)
        shut();
done:
    dlclose(h);
    return rc;
}
