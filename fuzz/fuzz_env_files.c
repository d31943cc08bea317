/* libFuzzer target: the host files truecost env and doctor read
 * (os-release, cpuinfo, meminfo, mountinfo, proc/version, module lists,
 * cgroups, the NVIDIA driver's version files),
 * as whatever bytes a broken or hostile tree could hold. The first byte
 * picks the file; the rest is written there under a private root, and the
 * readers run over that root. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor/doctor.h"
#include "envinfo/env_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static void make_root(void)
{
    static const char *const dirs[] = {
        "proc",   "proc/self",   "proc/sys",           "proc/sys/kernel",
        "proc/1", "proc/driver", "proc/driver/nvidia", "etc",
        "sys",    "sys/module",  "sys/module/nvidia"};
    snprintf(root, sizeof root, "/tmp/truecost-fuzz-env-XXXXXX");
    if (!mkdtemp(root))
        abort();
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        mkdir(p, 0700);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const files[] = {"etc/os-release",
                                        "proc/cpuinfo",
                                        "proc/meminfo",
                                        "proc/self/mountinfo",
                                        "proc/version",
                                        "proc/modules",
                                        "proc/sys/kernel/osrelease",
                                        "proc/1/cgroup",
                                        "proc/self/cgroup",
                                        "proc/1/mountinfo",
                                        "proc/driver/nvidia/version",
                                        "sys/module/nvidia/version"};
    const size_t n_files = sizeof files / sizeof files[0];
    if (!root[0])
        make_root();
    if (size < 1)
        return 0;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", root, files[data[0] % n_files]);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    json_decref(tc_env_os(root));
    json_decref(tc_env_cpu(root));
    json_decref(tc_env_memory(root));
    json_decref(tc_env_disk(root, "/"));
    tc_doctor_config cfg = {.root = root,
                            .no_server = 1,
                            .nvml_lib = "/nonexistent",
                            .rocm_lib = "/nonexistent",
                            .user = "nobody"};
    tc_doctor_report *rep = malloc(sizeof *rep);
    char err[256];
    if (rep && tc_doctor_run(&cfg, rep, err, sizeof err) == TC_OK && rep->status > 2)
        __builtin_trap();
    free(rep);
    return 0;
}
