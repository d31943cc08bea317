/* NVIDIA checks, in the order the usual failure chain goes: the module is
 * not loaded (not rebooted, DKMS not built for this kernel, Secure Boot
 * refused it, nouveau holds the card), then device nodes, NVML, and a
 * user-space library newer than the loaded module. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "doctor_internal.h"

#define EFI_SECUREBOOT "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18

/* 1 enabled, 0 disabled, -1 not a UEFI Secure Boot machine (or unreadable).
 * The efivar is 4 bytes of attributes, then the value byte. */
static int secure_boot(const dr_ctx *c)
{
    char p[1024];
    unsigned char b[5];
    FILE *f = fopen(dr_path(c, p, sizeof p, EFI_SECUREBOOT), "rb");
    if (!f)
        return -1;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return n == sizeof b ? b[4] == 1 : -1;
}

/* Lists "VERSION: KERNEL, KERNEL" of /var/lib/dkms/nvidia into list and
 * returns 1 when one version has a build for the running kernel, 0 when
 * none does, -1 when nvidia is not managed by DKMS. */
static int dkms_state(const dr_ctx *c, char *list, size_t cap)
{
    char p[1024];
    int built = 0;
    list[0] = '\0';
    DIR *d = opendir(dr_path(c, p, sizeof p, "/var/lib/dkms/nvidia"));
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

static void check_dkms(dr_ctx *c)
{
    tc_doctor_check *k =
        dr_add(c, "nvidia.dkms", "NVIDIA DKMS module built for the running kernel");
    char list[512];
    int st = dkms_state(c, list, sizeof list);
    if (st < 0) {
        dr_set(k, TC_DOCTOR_SKIP);
        dr_ev(k, "no /var/lib/dkms/nvidia: the driver is not built by DKMS");
        return;
    }
    dr_ev(k, "running kernel %s; /var/lib/dkms/nvidia: %s", c->kernel[0] ? c->kernel : "unknown",
          list[0] ? list : "empty");
    if (st == 1 || c->nv_loaded)
        return;
    dr_set(k, TC_DOCTOR_FAIL);
    dr_fix(k,
           "DKMS has not built nvidia for kernel %s (usually after a kernel upgrade): "
           "sudo dkms autoinstall (check with: dkms status), or reinstall the driver "
           "(sudo apt install --reinstall nvidia-driver-XXX); then reboot",
           c->kernel);
}

static void check_module(dr_ctx *c)
{
    tc_doctor_check *k = dr_add(c, "nvidia.module", "NVIDIA kernel module loaded");
    dr_ev(k, "PCI %s vendor 0x10de", c->nv_pci);
    if (c->nv_loaded) {
        dr_ev(k, "nvidia in /proc/modules");
        return;
    }
    dr_set(k, TC_DOCTOR_FAIL);
    dr_ev(k, "/proc/modules has no nvidia (nvidia-smi: \"couldn't communicate with the NVIDIA "
             "driver\")");
    dr_fix(k, "if the driver was just installed, reboot; if not installed: sudo ubuntu-drivers "
              "devices, then sudo apt install nvidia-driver-XXX (the recommended one) and reboot; "
              "see the DKMS, Secure Boot and nouveau checks for why a module does not load");
}

static void check_nouveau(dr_ctx *c)
{
    tc_doctor_check *k = dr_add(c, "nvidia.nouveau", "nouveau (open-source driver) not loaded");
    if (!c->nouveau_loaded) {
        dr_ev(k, "/proc/modules has no nouveau");
        return;
    }
    dr_set(k, TC_DOCTOR_FAIL);
    dr_ev(k, "nouveau in /proc/modules: it holds the GPU, so nvidia cannot bind");
    dr_fix(k, "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee "
              "/etc/modprobe.d/blacklist-nouveau.conf; sudo update-initramfs -u; add "
              "nouveau.modeset=0 to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub; sudo "
              "update-grub; reboot");
}

static void check_secure_boot(dr_ctx *c)
{
    tc_doctor_check *k = dr_add(c, "nvidia.secureboot", "Secure Boot allows the NVIDIA module");
    int sb = secure_boot(c);
    if (sb < 0) {
        dr_ev(k, "no readable SecureBoot efivar: not a UEFI Secure Boot system");
        return;
    }
    dr_ev(k, "Secure Boot %s (efivars SecureBoot byte 5 = %d)", sb ? "enabled" : "disabled", sb);
    if (!sb)
        return;
    if (c->nv_loaded) {
        dr_ev(k, "the nvidia module is loaded, so it is signed with an enrolled key");
        return;
    }
    char list[512];
    if (dkms_state(c, list, sizeof list) == 0) {
        /* No module exists for this kernel: Secure Boot is not what stops
         * it yet (the DKMS check says why); it may once one is built. */
        dr_set(k, TC_DOCTOR_WARN);
        dr_ev(k,
              "nvidia not loaded, but no nvidia module is built for kernel %s: Secure Boot "
              "may refuse it once built",
              c->kernel[0] ? c->kernel : "unknown");
        dr_fix(k, "after the DKMS build, if the module still does not load (dmesg: \"Key was "
                  "rejected by service\"), enrol the signing key: sudo mokutil --import "
                  "/var/lib/shim-signed/mok/MOK.der, reboot; or disable Secure Boot");
        return;
    }
    dr_set(k, TC_DOCTOR_FAIL);
    dr_ev(k, "nvidia not loaded: an unsigned module is refused");
    dr_fix(k, "sign the module: sudo mokutil --import /var/lib/shim-signed/mok/MOK.der, reboot "
              "and enrol the key in the blue MOK manager screen (DKMS then signs nvidia with "
              "it); or disable Secure Boot in the firmware setup. Check: mokutil --sb-state");
}

static void check_devnodes(dr_ctx *c)
{
    tc_doctor_check *k = dr_add(c, "nvidia.devnodes", "/dev/nvidia* device nodes present");
    if (!c->nv_loaded) {
        dr_set(k, TC_DOCTOR_SKIP);
        dr_ev(k, "the nvidia module is not loaded");
        return;
    }
    int n0 = dr_exists(c, "/dev/nvidia0"), ctl = dr_exists(c, "/dev/nvidiactl");
    dr_ev(k, "/dev/nvidia0 %s, /dev/nvidiactl %s", n0 ? "present" : "missing",
          ctl ? "present" : "missing");
    if (n0 && ctl)
        return;
    dr_set(k, TC_DOCTOR_FAIL);
    dr_fix(k, "create them: sudo nvidia-modprobe -c 0 -u (or reboot); in a container, start it "
              "with the GPUs passed in (docker run --gpus all, NVIDIA Container Toolkit)");
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue ..."
 * (or "Open Kernel Module"): the first word after "Kernel Module". */
static int module_version(const dr_ctx *c, char *ver, size_t len)
{
    char text[1024];
    if (dr_read(c, "/proc/driver/nvidia/version", text, sizeof text) < 0)
        return -1;
    const char *s = strstr(text, "Kernel Module");
    if (!s)
        return -1;
    s += strlen("Kernel Module");
    while (*s == ' ')
        s++;
    size_t n = strcspn(s, " \n");
    if (n == 0 || n >= len)
        return -1;
    memcpy(ver, s, n);
    ver[n] = '\0';
    return 0;
}

static void mismatch_fix(tc_doctor_check *k)
{
    dr_set(k, TC_DOCTOR_FAIL);
    dr_fix(k, "the driver was upgraded but the old module is still loaded: reboot (or, with "
              "nothing using the GPU: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && "
              "sudo modprobe nvidia)");
}

static void check_nvml(dr_ctx *c)
{
    tc_doctor_check *k = dr_add(c, "nvidia.nvml", "NVML (libnvidia-ml) loads");
    tc_doctor_check *v = dr_add(c, "nvidia.version", "NVIDIA driver and library versions match");
    if (!c->nv_loaded) {
        dr_set(k, TC_DOCTOR_SKIP);
        dr_set(v, TC_DOCTOR_SKIP);
        dr_ev(k, "the nvidia module is not loaded");
        dr_ev(v, "the nvidia module is not loaded");
        return;
    }
    tc_doctor_nvml_fn fn = c->cfg->nvml_version ? c->cfg->nvml_version : tc_doctor_nvml_version;
    const char *lib = c->cfg->nvml_lib ? c->cfg->nvml_lib : "libnvidia-ml.so.1";
    char lv[96] = "", kv[96] = "", err[512] = "";
    tc_err rc = fn(c->cfg->nvml_lib, lv, sizeof lv, err, sizeof err);
    int have_kv = module_version(c, kv, sizeof kv) == 0;
    if (have_kv)
        dr_ev(v, "kernel module %s (/proc/driver/nvidia/version)", kv);
    if (rc == TC_ERR_NOTFOUND) {
        dr_set(k, TC_DOCTOR_FAIL);
        dr_ev(k, "cannot load %s: %s", lib, err);
        dr_fix(k, "install the driver's user-space part (Ubuntu: sudo apt install "
                  "libnvidia-compute-XXX / nvidia-utils-XXX matching the driver), or pass "
                  "--nvml-lib PATH; without NVML truecost falls back to nvidia-smi");
        dr_set(v, TC_DOCTOR_SKIP);
        dr_ev(v, "NVML not loadable");
        return;
    }
    if (rc == TC_ERR_INVALID) {
        dr_set(k, TC_DOCTOR_FAIL);
        dr_ev(k, "%s: %s", lib, err);
        dr_fix(k, "see the version check");
        dr_ev(v, "NVML: %s", err);
        mismatch_fix(v);
        return;
    }
    if (rc != TC_OK) {
        dr_set(k, TC_DOCTOR_FAIL);
        dr_ev(k, "%s: %s", lib, err);
        dr_fix(k, "run nvidia-smi for the driver's own message; reinstall the driver if it "
                  "fails too");
        dr_set(v, TC_DOCTOR_SKIP);
        return;
    }
    dr_ev(k, "%s: driver %s", lib, lv);
    dr_ev(v, "NVML library %s", lv);
    if (!have_kv) {
        dr_set(v, TC_DOCTOR_SKIP);
        dr_ev(v, "no readable /proc/driver/nvidia/version");
    } else if (strcmp(kv, lv) != 0) {
        mismatch_fix(v);
    }
}

void dr_check_nvidia(dr_ctx *c)
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
            tc_doctor_check *k = dr_add(c, ids[i][0], ids[i][1]);
            dr_set(k, TC_DOCTOR_SKIP);
            dr_ev(k,
                  c->wsl && c->n_nv ? "WSL2: the Windows driver serves the GPU" : "no NVIDIA GPU");
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
