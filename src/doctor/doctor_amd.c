/* AMD (amdgpu + ROCm) and WSL2 checks: the module, the compute and render
 * nodes, the groups that give access to them, ROCm itself, the
 * HSA_OVERRIDE_GFX_VERSION work-around, and the WSL2 paravirtual GPU. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "doctor_internal.h"

/* The first /dev/dri/renderD* under the root into name; 0 or -1. */
static int render_node(const tc_doctor_ctx *c, char *name, size_t len)
{
    char p[1024];
    DIR *d = opendir(tc_doctor_path(c, p, sizeof p, "/dev/dri"));
    if (!d)
        return -1;
    struct dirent *e;
    int found = -1;
    while (found < 0 && (e = readdir(d)))
        if (strncmp(e->d_name, "renderD", 7) == 0) {
            snprintf(name, len, "/dev/dri/%s", e->d_name);
            found = 0;
        }
    closedir(d);
    return found;
}

/* 1 when user is listed in group's line of ROOT/etc/group, 0 when not,
 * -1 when there is no such group (or no file). */
static int in_group(const tc_doctor_ctx *c, const char *group)
{
    char line[2048];
    FILE *f = tc_root_open(c->root, "/etc/group", "r");
    if (!f)
        return -1;
    int res = -1;
    size_t gl = strlen(group);
    while (res < 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, group, gl) != 0 || line[gl] != ':')
            continue;
        res = 0;
        /* name:password:gid:member,member */
        char *members = strrchr(line, ':');
        char *save = NULL;
        for (char *m = strtok_r(members + 1, ",\n", &save); m; m = strtok_r(NULL, ",\n", &save))
            if (strcmp(m, c->user) == 0)
                res = 1;
    }
    fclose(f);
    return res;
}

static tc_doctor_check *skipped(tc_doctor_ctx *c, const char *id, const char *title,
                                const char *why)
{
    tc_doctor_check *k = tc_doctor_add(c, id, title);
    tc_doctor_set_status(k, TC_DOCTOR_SKIP);
    tc_doctor_evidence(k, "%s", why);
    return k;
}

static void check_module(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "amd.module", "amdgpu kernel module loaded");
    tc_doctor_evidence(k, "PCI %s vendor 0x1002", c->amd_pci);
    if (c->amd_loaded) {
        tc_doctor_evidence(k, "amdgpu loaded");
        return;
    }
    tc_doctor_set_status(k, TC_DOCTOR_FAIL);
    tc_doctor_evidence(k, "/proc/modules has no amdgpu");
    tc_doctor_fix(
        k, "sudo modprobe amdgpu (dmesg | grep amdgpu says why it fails); if the driver is "
           "missing: sudo apt install ./amdgpu-install_*.deb (from repo.radeon.com, for this "
           "Ubuntu release), sudo amdgpu-install --usecase=rocm, reboot; after a kernel "
           "upgrade broke amdgpu-dkms, boot the previous kernel from GRUB");
}

/* Device nodes, then whether the user may open them. */
static void check_nodes(tc_doctor_ctx *c)
{
    char render[300] = "";
    if (!c->amd_loaded) {
        skipped(c, "amd.devnodes", "/dev/kfd and /dev/dri/renderD* present", "amdgpu not loaded");
        skipped(c, "amd.access", "user may use the GPU (render/video groups)", "amdgpu not loaded");
        return;
    }
    tc_doctor_check *k = tc_doctor_add(c, "amd.devnodes", "/dev/kfd and /dev/dri/renderD* present");
    int kfd = tc_root_exists(c->root, "/dev/kfd"), rn = render_node(c, render, sizeof render) == 0;
    tc_doctor_evidence(k, "/dev/kfd %s; %s", kfd ? "present" : "missing",
                       rn ? render : "no /dev/dri/renderD*");
    if (!kfd || !rn) {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_fix(k, "%s",
                      kfd ? ""
                          : "no /dev/kfd: the amdgpu driver has no compute (KFD) "
                            "support here: install the AMD driver with amdgpu-install "
                            "--usecase=rocm and reboot;");
        tc_doctor_fix(k, "in a container pass --device=/dev/kfd --device=/dev/dri");
        skipped(c, "amd.access", "user may use the GPU (render/video groups)",
                "device nodes missing");
        return;
    }
    tc_doctor_check *a =
        tc_doctor_add(c, "amd.access", "user may use the GPU (render/video groups)");
    int r = in_group(c, "render"), v = in_group(c, "video");
    if (strcmp(c->user, "root") == 0 || r == 1 || (r < 0 && v == 1)) {
        tc_doctor_evidence(a, "user %s: %s", c->user,
                           strcmp(c->user, "root") == 0 ? "root" : "in the group");
        char p[1024];
        /* On the live host, /etc/group is not the session: right after
         * usermod the groups arrive only with a new login. */
        if (strcmp(c->root, "/") == 0 && strcmp(c->user, "root") != 0 &&
            access(tc_doctor_path(c, p, sizeof p, "/dev/kfd"), R_OK | W_OK) != 0) {
            tc_doctor_set_status(a, TC_DOCTOR_WARN);
            tc_doctor_evidence(a, "but this session cannot open /dev/kfd");
            tc_doctor_fix(a,
                          "log out and in again (or run: newgrp render) so the new group applies");
        }
        return;
    }
    tc_doctor_evidence(a, "user %s is in neither render nor video (/etc/group)", c->user);
    char p[1024];
    int can = access(tc_doctor_path(c, p, sizeof p, "/dev/kfd"), R_OK | W_OK) == 0;
    /* Access without the groups comes from a desktop seat's ACL, which an
     * SSH session or a service does not get: a warning, not a failure. */
    tc_doctor_set_status(a, can ? TC_DOCTOR_WARN : TC_DOCTOR_FAIL);
    tc_doctor_evidence(a, "/dev/kfd %s", can ? "accessible now (seat ACL?)" : "not accessible");
    tc_doctor_fix(a, "sudo usermod -a -G render,video %s, then log out and in again", c->user);
}

static void check_rocm(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "amd.rocm", "ROCm installed");
    char ver[64];
    if (tc_root_read(c->root, "/opt/rocm/.info/version", ver, sizeof ver, NULL) == TC_OK) {
        tc_doctor_evidence(k, "ROCm %s (/opt/rocm/.info/version)", ver);
        return;
    }
    tc_doctor_set_status(k, TC_DOCTOR_WARN);
    tc_doctor_evidence(k, "no /opt/rocm/.info/version");
    tc_doctor_fix(k,
                  "install ROCm: sudo amdgpu-install --usecase=rocm, reboot, then rocminfo should "
                  "list a GPU agent (Ollama and llama.cpp may bring their own ROCm libraries)");
}

static void check_override(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "amd.hsa_override", "HSA_OVERRIDE_GFX_VERSION not set");
    const char *o = c->env("HSA_OVERRIDE_GFX_VERSION");
    if (!o || !o[0]) {
        tc_doctor_evidence(k, "HSA_OVERRIDE_GFX_VERSION unset");
        return;
    }
    tc_doctor_set_status(k, TC_DOCTOR_WARN);
    snprintf(k->title, sizeof k->title, "HSA_OVERRIDE_GFX_VERSION is set (a work-around)");
    tc_doctor_evidence(k, "HSA_OVERRIDE_GFX_VERSION=%s: ROCm treats the card as another gfx target",
                       o);
    tc_doctor_fix(k,
                  "a work-around, not a fix: results may differ or crash; prefer a card on ROCm's "
                  "supported list, and keep the variable recorded with every run");
}

void tc_doctor_check_amd(tc_doctor_ctx *c)
{
    const char *why = !c->n_amd ? "no AMD GPU" : "WSL2: see the WSL checks";
    if (!c->n_amd || c->wsl) {
        skipped(c, "amd.module", "amdgpu kernel module loaded", why);
        skipped(c, "amd.devnodes", "/dev/kfd and /dev/dri/renderD* present", why);
        skipped(c, "amd.access", "user may use the GPU (render/video groups)", why);
    } else {
        check_module(c);
        check_nodes(c);
    }
    if (!c->n_amd) {
        skipped(c, "amd.rocm", "ROCm installed", why);
        skipped(c, "amd.hsa_override", "HSA_OVERRIDE_GFX_VERSION not set", why);
        return;
    }
    check_rocm(c);
    check_override(c);
}

static void check_wsl_nvidia(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "wsl.nvidia", "NVIDIA on WSL2 uses the Windows driver");
    if (!c->n_nv) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "no NVIDIA GPU");
        return;
    }
    tc_doctor_evidence(k,
                       "the Windows NVIDIA driver provides CUDA and NVML here (/usr/lib/wsl/lib)");
    if (c->nv_loaded || tc_root_exists(c->root, "/var/lib/dkms/nvidia")) {
        tc_doctor_set_status(k, TC_DOCTOR_WARN);
        tc_doctor_evidence(k, "a Linux NVIDIA driver is installed inside WSL");
        tc_doctor_fix(k,
                      "remove it (sudo apt remove --purge 'nvidia-driver-*' 'nvidia-dkms-*'): it "
                      "shadows the Windows driver's libraries; install only the CUDA toolkit "
                      "for WSL if you build CUDA code");
        return;
    }
    tc_doctor_fix(k, "do not install a Linux NVIDIA driver inside WSL; update the Windows driver");
}

static void check_wsl_amd(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "wsl.amd", "ROCm for WSL set up (/dev/kfd)");
    if (!c->n_amd) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "no AMD GPU");
        return;
    }
    if (tc_root_exists(c->root, "/dev/kfd")) {
        tc_doctor_evidence(k, "/dev/kfd present");
        return;
    }
    tc_doctor_set_status(k, TC_DOCTOR_FAIL);
    tc_doctor_evidence(k, "AMD GPU %s but no /dev/kfd: the ROCm device is not passed into WSL",
                       c->amd_pci);
    tc_doctor_fix(k,
                  "install an AMD Windows driver that supports WSL2, update WSL (wsl --update in "
                  "Windows), install ROCm for WSL inside it (amdgpu-install --usecase=wsl,rocm "
                  "--no-dkms); check: ls /dev/dxg /dev/kfd; rocminfo");
}

void tc_doctor_check_wsl(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "wsl.dxg", "WSL2 GPU paravirtualisation (/dev/dxg)");
    if (!c->wsl) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "not WSL (/proc/version does not mention Microsoft)");
        skipped(c, "wsl.nvidia", "NVIDIA on WSL2 uses the Windows driver", "not WSL");
        skipped(c, "wsl.amd", "ROCm for WSL set up (/dev/kfd)", "not WSL");
        return;
    }
    if (tc_root_exists(c->root, "/dev/dxg")) {
        tc_doctor_evidence(k,
                           "WSL2 (/proc/version mentions Microsoft); /dev/dxg present: the Windows "
                           "driver shares the GPU");
    } else {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_evidence(k, "WSL (/proc/version mentions Microsoft) but no /dev/dxg");
        tc_doctor_fix(k,
                      "use WSL2 (wsl --set-version DISTRO 2), update it (wsl --update) and install "
                      "the GPU vendor's current Windows driver");
    }
    check_wsl_nvidia(c);
    check_wsl_amd(c);
}
