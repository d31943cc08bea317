/* The GPUs of the fingerprint: from the telemetry backends where one finds
 * them (they know the model, driver, runtime, memory and power limit),
 * otherwise from the PCI ids in sysfs, named through pci.ids when the tree
 * has one. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env_internal.h"
#include "telemetry/telem_set.h"

typedef struct vendor {
    unsigned id;
    const char *name;
    const char *module; /* kernel module whose version is the driver's */
} vendor;

/* Other display controllers (server BMCs such as ASPEED, Matrox) do not
 * run inference and are left out. */
static const vendor vendors[] = {
    {0x10de, "NVIDIA", "nvidia"}, {0x1002, "AMD", "amdgpu"}, {0x8086, "Intel", "i915"}};

static const vendor *find_vendor(unsigned id)
{
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (vendors[i].id == id)
            return &vendors[i];
    return NULL;
}

static const char *backend_vendor(const char *backend)
{
    if (strcmp(backend, "nvml") == 0 || strcmp(backend, "nvidia-smi") == 0)
        return "NVIDIA";
    if (strcmp(backend, "rocm") == 0 || strcmp(backend, "amdgpu") == 0 ||
        strcmp(backend, "rocm-smi") == 0)
        return "AMD";
    return NULL;
}

static json_t *gpu_object(const char *vendor_name, json_t *name, json_t *mem, json_t *driver,
                          json_t *runtime, json_t *power_w, json_t *pci_id)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "vendor", tc_env_str(vendor_name),
                     "name", name, "memory_bytes", mem, "driver", driver, "runtime", runtime,
                     "power_limit_w", power_w, "pci_id", pci_id);
}

/* One sample for what only a sample carries: memory total, power limit. */
static json_t *telem_gpu(tc_telem_set *set, int i)
{
    const tc_telem_device *d = tc_telem_set_device(set, i);
    tc_telem_sample x;
    memset(&x, 0, sizeof x);
    if (tc_telem_set_sample(set, i, &x) != TC_OK)
        x.valid = 0;
    json_t *mem = x.valid & TC_TF_MEM_TOTAL ? json_integer(x.mem_total_bytes) : json_null();
    json_t *limit =
        x.valid & TC_TF_POWER_LIMIT ? json_real((double)x.power_limit_mw / 1000.0) : json_null();
    return gpu_object(backend_vendor(tc_telem_set_backend(set, i)), tc_env_str(d->name), mem,
                      tc_env_str(d->driver), tc_env_str(d->runtime), limit, json_null());
}

/* Appends the telemetry GPUs to list; sets bit k of *seen for vendors[k]. */
static void from_telemetry(const tc_env_config *cfg, const char *root, json_t *list, unsigned *seen)
{
    const char *which = cfg->telemetry ? cfg->telemetry : strcmp(root, "/") == 0 ? "auto" : "none";
    tc_telem_config t = cfg->telem;
    char sysfs[4096];
    if (!t.sysfs_root && tc_root_join(sysfs, sizeof sysfs, root, "/sys") == TC_OK)
        t.sysfs_root = sysfs;
    if (!t.opt_root)
        t.opt_root = root;
    tc_telem_set *set = NULL;
    if (tc_telem_set_open(which, &t, &set, NULL, 0, NULL, 0) != TC_OK)
        return; /* no source: the PCI ids still name the GPUs */
    for (int i = 0; i < tc_telem_set_count(set); i++) {
        if (tc_telem_set_device(set, i)->kind != TC_TELEM_GPU)
            continue;
        const char *v = backend_vendor(tc_telem_set_backend(set, i));
        for (size_t k = 0; v && k < sizeof vendors / sizeof vendors[0]; k++)
            if (strcmp(vendors[k].name, v) == 0)
                *seen |= 1u << k;
        json_array_append_new(list, telem_gpu(set, i));
    }
    tc_telem_set_close(set);
}

/* pci.ids: "VVVV  Vendor" at column 0, then "\tDDDD  Device" lines. */
static json_t *pci_name(const char *root, unsigned ven, unsigned dev)
{
    static const char *const files[] = {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"};
    FILE *f = NULL;
    for (size_t i = 0; !f && i < 2; i++)
        f = tc_root_open(root, files[i], "r");
    if (!f)
        return json_null();
    char line[512], vkey[8], dkey[8];
    snprintf(vkey, sizeof vkey, "%04x  ", ven);
    snprintf(dkey, sizeof dkey, "%04x  ", dev);
    json_t *name = json_null();
    int in_vendor = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '\t' && line[0] != '#' && line[0])
            in_vendor = strncmp(line, vkey, 6) == 0;
        else if (in_vendor && line[0] == '\t' && line[1] != '\t' &&
                 strncmp(line + 1, dkey, 6) == 0) {
            json_decref(name);
            name = tc_env_str(line + 7);
            break;
        }
    }
    fclose(f);
    return name;
}

static int read_hex(const char *root, const char *dir, const char *file, unsigned *out)
{
    char rel[512], v[32];
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    if (tc_env_read(root, rel, v, sizeof v) < 0)
        return -1;
    char *end;
    unsigned long x = strtoul(v, &end, 16);
    if (end == v || *end)
        return -1;
    *out = (unsigned)x;
    return 0;
}

static json_t *module_version(const char *root, const char *module)
{
    char rel[128], v[64];
    snprintf(rel, sizeof rel, "/sys/module/%s/version", module);
    return tc_env_read(root, rel, v, sizeof v) == 0 ? json_string(v) : json_null();
}

static json_t *rocm_runtime(const char *root)
{
    char v[64], text[80];
    if (tc_env_read(root, "/opt/rocm/.info/version", v, sizeof v) < 0)
        return json_null();
    v[strcspn(v, "-\n")] = '\0'; /* "6.1.2-119": the build number is left out */
    snprintf(text, sizeof text, "ROCm %s", v);
    return json_string(text);
}

/* amdgpu says its VRAM size in the PCI device's directory. */
static json_t *vram(const char *root, const char *dir)
{
    char rel[512], v[32];
    snprintf(rel, sizeof rel, "%s/mem_info_vram_total", dir);
    if (tc_env_read(root, rel, v, sizeof v) < 0)
        return json_null();
    char *end;
    long long n = strtoll(v, &end, 10);
    return end != v && !*end && n > 0 ? json_integer(n) : json_null();
}

static void pci_device(const char *root, const char *name, json_t *list, unsigned seen)
{
    char dir[320];
    unsigned cls, ven, dev;
    snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%s", name);
    if (read_hex(root, dir, "class", &cls) < 0 ||
        ((cls >> 16) != 0x03 && (cls >> 16) != 0x12) || /* display or accelerator (MI300X) */
        read_hex(root, dir, "vendor", &ven) < 0 || read_hex(root, dir, "device", &dev) < 0)
        return;
    const vendor *v = find_vendor(ven);
    if (!v || seen & (1u << (v - vendors)))
        return; /* a telemetry backend already listed this vendor's GPUs */
    char id[16];
    snprintf(id, sizeof id, "%04x:%04x", ven, dev);
    json_t *runtime = ven == 0x1002 ? rocm_runtime(root) : json_null();
    json_array_append_new(list, gpu_object(v->name, pci_name(root, ven, dev), vram(root, dir),
                                           module_version(root, v->module), runtime, json_null(),
                                           json_string(id)));
}

static void from_pci(const char *root, json_t *list, unsigned seen)
{
    char path[4096];
    struct dirent **names = NULL;
    if (tc_root_join(path, sizeof path, root, "/sys/bus/pci/devices") != TC_OK)
        return;
    int n = scandir(path, &names, NULL, alphasort); /* bus order, not readdir's */
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.')
            pci_device(root, names[i]->d_name, list, seen);
        free(names[i]);
    }
    free(names);
}

json_t *tc_env_gpus(const tc_env_config *cfg, const char *root)
{
    json_t *list = json_array();
    if (!list)
        return NULL;
    unsigned seen = 0;
    from_telemetry(cfg, root, list, &seen);
    from_pci(root, list, seen);
    return list;
}
