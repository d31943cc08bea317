/* Writes the exposition family by family: Prometheus wants every line of
 * one metric together, after its HELP and TYPE. */
#include "agent_expo.h"

#include <stdio.h>
#include <string.h>

#include "tc_version.h"

typedef struct family {
    const char *name, *help, *type;
    tc_telem_kind kind;
    uint32_t bit;
} family;

static const family families[] = {
    {"truecost_gpu_power_watts", "GPU board power draw as the driver reports it.", "gauge",
     TC_TELEM_GPU, TC_TF_POWER},
    {"truecost_gpu_energy_joules_total", "GPU board energy counter (since the driver loaded).",
     "counter", TC_TELEM_GPU, TC_TF_ENERGY},
    {"truecost_gpu_utilization_ratio", "Share of time the GPU was busy (0 to 1).", "gauge",
     TC_TELEM_GPU, TC_TF_UTIL_GPU},
    {"truecost_gpu_memory_used_bytes", "GPU memory in use.", "gauge", TC_TELEM_GPU, TC_TF_MEM_USED},
    {"truecost_gpu_memory_total_bytes", "GPU memory in all.", "gauge", TC_TELEM_GPU,
     TC_TF_MEM_TOTAL},
    {"truecost_gpu_temperature_celsius", "GPU temperature (edge or GPU sensor).", "gauge",
     TC_TELEM_GPU, TC_TF_TEMP},
    {"truecost_cpu_package_energy_joules_total", "CPU package energy counter (RAPL).", "counter",
     TC_TELEM_CPU, TC_TF_ENERGY},
};

const char *tc_agent_vendor(const char *backend)
{
    if (strcmp(backend, "nvml") == 0 || strcmp(backend, "nvidia-smi") == 0)
        return "nvidia";
    if (strcmp(backend, "rocm") == 0 || strcmp(backend, "amdgpu") == 0 ||
        strcmp(backend, "rocm-smi") == 0)
        return "amd";
    return strcmp(backend, "rapl") == 0 ? "cpu" : backend;
}

/* A label value with the format's escapes (\\, \" and \n). */
static void label(tc_buf *b, const char *name, const char *value, int first)
{
    tc_buf_printf(b, "%s%s=\"", first ? "" : ",", name);
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '"')
            tc_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            tc_buf_puts(b, "\\n");
        else
            tc_buf_append(b, p, 1);
    }
    tc_buf_puts(b, "\"");
}

static double value_of(const tc_telem_sample *s, uint32_t bit)
{
    switch (bit) {
    case TC_TF_POWER:
        return (double)s->power_mw / 1e3;
    case TC_TF_ENERGY:
        return (double)s->energy_uj / 1e6;
    case TC_TF_UTIL_GPU:
        return s->util_pct / 100.0;
    case TC_TF_MEM_USED:
        return (double)s->mem_used_bytes;
    case TC_TF_MEM_TOTAL:
        return (double)s->mem_total_bytes;
    default:
        return s->temp_mc / 1e3;
    }
}

static void write_family(tc_buf *b, const family *f, const tc_agent_reading *r, int n)
{
    int header = 0, gpu = -1;
    for (int i = 0; i < n; i++) {
        if (r[i].dev->kind == TC_TELEM_GPU)
            gpu++;
        if (r[i].dev->kind != f->kind || !(r[i].s->valid & f->bit))
            continue;
        if (!header++)
            tc_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
        tc_buf_printf(b, "%s{", f->name);
        if (f->kind == TC_TELEM_GPU) {
            char index[16];
            snprintf(index, sizeof index, "%d", gpu);
            label(b, "gpu", index, 1);
            label(b, "uuid", r[i].dev->id, 0);
            label(b, "vendor", tc_agent_vendor(r[i].backend), 0);
        } else {
            label(b, "package", r[i].dev->id, 1);
        }
        label(b, "name", r[i].dev->name, 0);
        tc_buf_printf(b, "} %.15g\n", value_of(r[i].s, f->bit));
    }
}

void tc_agent_expo_write(tc_buf *b, const tc_agent_reading *r, int n)
{
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++)
        write_family(b, &families[k], r, n);
    tc_buf_puts(b, "# HELP truecost_build_info The truecost build serving these metrics.\n"
                   "# TYPE truecost_build_info gauge\n");
    tc_buf_puts(b, "truecost_build_info{");
    label(b, "version", TC_VERSION, 1);
    label(b, "git", TC_VERSION_GIT, 0);
    tc_buf_puts(b, "} 1\n");
}
