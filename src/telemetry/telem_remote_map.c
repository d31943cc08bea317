/* Which exporter metric is which sample field. The names and units are
 * each exporter's own:
 * - truecost agent (src/agent/agent_expo.c): base units, labels gpu, uuid,
 *   vendor, name; CPU packages labelled package, name.
 * - NVIDIA DCGM exporter (default counters CSV): DCGM_FI_DEV_POWER_USAGE W,
 *   DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION mJ since boot, DCGM_FI_DEV_GPU_UTIL
 *   %, DCGM_FI_DEV_MEM_COPY_UTIL %, DCGM_FI_DEV_FB_USED MiB,
 *   DCGM_FI_DEV_GPU_TEMP degrees C; labels gpu, UUID, modelName.
 * - AMD device-metrics-exporter (ROCm/device-metrics-exporter,
 *   docs/configuration/metricslist.md; the fields are served lower-case,
 *   optionally with a configured prefix such as amd_): GPU_POWER_USAGE W,
 *   GPU_PACKAGE_POWER (MI3xx) / GPU_AVERAGE_PACKAGE_POWER (MI2xx) W,
 *   GPU_ENERGY_CONSUMED uJ, GPU_GFX_ACTIVITY %, GPU_UMC_ACTIVITY %,
 *   GPU_USED_VRAM / GPU_TOTAL_VRAM "MB" (amd-smi's MiB),
 *   GPU_EDGE_TEMPERATURE / GPU_JUNCTION_TEMPERATURE degrees C; labels
 *   gpu_id, gpu_uuid, card_series.
 * - node_exporter's RAPL collector: node_rapl_package_joules_total J,
 *   label index. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "telem_remote.h"

typedef enum field {
    F_POWER,
    F_POWER_ALT, /* a second power reading, used when the first is absent */
    F_ENERGY,
    F_UTIL,
    F_MEM_UTIL,
    F_MEM_USED,
    F_MEM_TOTAL,
    F_TEMP,
    F_TEMP_HOT
} field;

typedef struct rule {
    const char *metric;
    const char *source;
    tc_telem_kind kind;
    field f;
    double scale;                /* to the sample's unit (mW, uJ, %, bytes, m°C) */
    const char *key, *name, *id; /* the labels that name the device */
} rule;

#define GPU TC_TELEM_GPU
#define CPU TC_TELEM_CPU
#define MIB 1048576.0
#define TC "truecost", GPU
#define DCGM "dcgm", GPU
#define AMD "amd", GPU
#define TC_L "gpu", "name", "uuid"
#define DCGM_L "gpu", "modelName", "UUID"
#define AMD_L "gpu_id", "card_series", "gpu_uuid"

static const rule rules[] = {
    {"truecost_gpu_power_watts", TC, F_POWER, 1e3, TC_L},
    {"truecost_gpu_energy_joules_total", TC, F_ENERGY, 1e6, TC_L},
    {"truecost_gpu_utilization_ratio", TC, F_UTIL, 100, TC_L},
    {"truecost_gpu_memory_used_bytes", TC, F_MEM_USED, 1, TC_L},
    {"truecost_gpu_memory_total_bytes", TC, F_MEM_TOTAL, 1, TC_L},
    {"truecost_gpu_temperature_celsius", TC, F_TEMP, 1e3, TC_L},
    {"truecost_cpu_package_energy_joules_total", "truecost", CPU, F_ENERGY, 1e6, "package", "name",
     "package"},
    {"DCGM_FI_DEV_POWER_USAGE", DCGM, F_POWER, 1e3, DCGM_L},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", DCGM, F_ENERGY, 1e3, DCGM_L},
    {"DCGM_FI_DEV_GPU_UTIL", DCGM, F_UTIL, 1, DCGM_L},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", DCGM, F_MEM_UTIL, 1, DCGM_L},
    {"DCGM_FI_DEV_FB_USED", DCGM, F_MEM_USED, MIB, DCGM_L},
    {"DCGM_FI_DEV_GPU_TEMP", DCGM, F_TEMP, 1e3, DCGM_L},
    {"gpu_power_usage", AMD, F_POWER, 1e3, AMD_L},
    {"gpu_package_power", AMD, F_POWER_ALT, 1e3, AMD_L},
    {"gpu_average_package_power", AMD, F_POWER_ALT, 1e3, AMD_L},
    {"gpu_energy_consumed", AMD, F_ENERGY, 1, AMD_L},
    {"gpu_gfx_activity", AMD, F_UTIL, 1, AMD_L},
    {"gpu_umc_activity", AMD, F_MEM_UTIL, 1, AMD_L},
    {"gpu_used_vram", AMD, F_MEM_USED, MIB, AMD_L},
    {"gpu_total_vram", AMD, F_MEM_TOTAL, MIB, AMD_L},
    {"gpu_edge_temperature", AMD, F_TEMP, 1e3, AMD_L},
    {"gpu_junction_temperature", AMD, F_TEMP_HOT, 1e3, AMD_L},
    {"node_rapl_package_joules_total", "node", CPU, F_ENERGY, 1e6, "index", NULL, "path"},
};

#define N_RULES (sizeof rules / sizeof rules[0])

/* The rule for a metric name; AMD's names may carry a prefix ("amd_"). */
static const rule *find_rule(const char *name)
{
    for (size_t i = 0; i < N_RULES; i++) {
        const rule *r = &rules[i];
        if (strcmp(name, r->metric) == 0)
            return r;
        size_t n = strlen(name), m = strlen(r->metric);
        if (strcmp(r->source, "amd") == 0 && n > m && name[n - m - 1] == '_' &&
            strcmp(name + n - m, r->metric) == 0)
            return r;
    }
    return NULL;
}

static tc_remote_dev *find_dev(const rule *r, const char *key, tc_remote_dev *out, int *n, int max)
{
    for (int i = 0; i < *n; i++)
        if (out[i].info.kind == r->kind && strcmp(out[i].source, r->source) == 0 &&
            strcmp(out[i].key, key) == 0)
            return &out[i];
    if (*n >= max)
        return NULL;
    tc_remote_dev *d = &out[(*n)++];
    memset(d, 0, sizeof *d);
    snprintf(d->source, sizeof d->source, "%s", r->source);
    snprintf(d->key, sizeof d->key, "%s", key);
    d->info.kind = r->kind;
    snprintf(d->info.energy_what, sizeof d->info.energy_what, "%s",
             r->kind == CPU ? "CPU package energy" : "GPU board energy");
    return d;
}

/* Labels become names and ids: printable bytes only. */
static void copy_label(char *dst, size_t len, const char *v)
{
    size_t i = 0;
    for (; v && v[i] && i + 1 < len; i++)
        dst[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7F ? '?' : v[i];
    dst[i] = '\0';
}

static void name_dev(tc_remote_dev *d, const rule *r, const tc_expo_sample *s)
{
    const char *name = r->name ? tc_expo_label_of(s, r->name) : NULL;
    char key[sizeof d->key];
    copy_label(key, sizeof key, d->key);
    if (!d->info.name[0] && name && *name)
        copy_label(d->info.name, sizeof d->info.name, name);
    else if (!d->info.name[0] && r->kind == CPU)
        snprintf(d->info.name, sizeof d->info.name, "package-%.64s", key);
    else if (!d->info.name[0])
        snprintf(d->info.name, sizeof d->info.name, "GPU %.64s", key);
    const char *id = tc_expo_label_of(s, r->id);
    if (!d->info.id[0])
        copy_label(d->info.id, sizeof d->info.id, id && *id ? id : key);
}

static uint32_t bit_of(field f)
{
    static const uint32_t bits[] = {TC_TF_POWER,     TC_TF_POWER,    TC_TF_ENERGY,
                                    TC_TF_UTIL_GPU,  TC_TF_UTIL_MEM, TC_TF_MEM_USED,
                                    TC_TF_MEM_TOTAL, TC_TF_TEMP,     TC_TF_TEMP_HOT};
    return bits[f];
}

static void set_field(tc_telem_sample *s, field f, double v)
{
    int temp = f == F_TEMP || f == F_TEMP_HOT;
    if (!isfinite(v) || (!temp && v < 0) || fabs(v) > 9e18)
        return; /* not available */
    if ((f == F_UTIL || f == F_MEM_UTIL) && v > 1000)
        return;
    if (temp && fabs(v) > 1e9)
        return;
    if (s->valid & bit_of(f))
        return; /* the first line wins */
    s->valid |= bit_of(f);
    switch (f) {
    case F_POWER:
    case F_POWER_ALT:
        s->power_mw = llround(v);
        break;
    case F_ENERGY:
        s->energy_uj = (uint64_t)llround(v);
        break;
    case F_UTIL:
        s->util_pct = (int)lround(v);
        break;
    case F_MEM_UTIL:
        s->mem_util_pct = (int)lround(v);
        break;
    case F_MEM_USED:
        s->mem_used_bytes = llround(v);
        break;
    case F_MEM_TOTAL:
        s->mem_total_bytes = llround(v);
        break;
    case F_TEMP:
        s->temp_mc = (int)lround(v);
        break;
    case F_TEMP_HOT:
        s->temp_hot_mc = (int)lround(v);
        break;
    }
}

int tc_remote_map(const tc_expo *e, tc_remote_dev *out, int max)
{
    int n = 0;
    /* Two passes: the main power reading first, so that an alternative
     * (AMD's package power) counts only when the main one is absent. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < e->n; i++) {
            const tc_expo_sample *s = &e->samples[i];
            const rule *r = find_rule(s->name);
            if (!r || (r->f == F_POWER_ALT) != (pass == 1))
                continue;
            const char *key = tc_expo_label_of(s, r->key);
            tc_remote_dev *d = find_dev(r, key ? key : "", out, &n, max);
            if (!d)
                continue;
            name_dev(d, r, s);
            set_field(&d->s, r->f, s->value * r->scale);
        }
    return n;
}
