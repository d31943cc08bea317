/* A fake librocm_smi64 for the ROCm SMI backend's tests, loaded through the
 * real dlopen path. Values come from environment variables read at
 * rsmi_init:
 *
 *   FAKE_RSMI_INIT=8               rsmi_init returns this status
 *   FAKE_RSMI_DEVICES=2            GPU count (default 1, at most 8)
 *   FAKE_RSMI_ENERGY_COUNTS=a,b,c  successive energy counter readings per
 *                                  GPU (the last repeats; default 1000000)
 *   FAKE_RSMI_RESOLUTION=15.3      the counter's resolution in µJ (a float)
 *   FAKE_RSMI_POWER_UW             rsmi_dev_power_ave_get (default 245000000)
 *   FAKE_RSMI_SOCKET_POWER_UW      rsmi_dev_power_get, type CURRENT
 *                                  (default 301000000)
 *   FAKE_RSMI_NOT_SUPPORTED=list   these return NOT_SUPPORTED (2):
 *   FAKE_RSMI_NO_PERMISSION=list   these return PERMISSION (4):
 *   FAKE_RSMI_FAIL=list            these return INTERNAL_EXCEPTION (6):
 *       name pci driver power_ave power power_cap energy busy mem_busy
 *       memory_usage memory_total temp_edge temp_junction
 *
 * Fixed values: "AMD Instinct MI300X", PCI 0000:0c+N:00.0, driver 6.8.5,
 * VRAM 192 GiB total and 24 GiB used, busy 73 %, memory busy 31 %, edge
 * 51.5 °C, junction 68.25 °C, power cap 750 W.
 *
 * Defining FAKE_RSMI_MINIMAL before including this file builds a library
 * with only the required entry points (rsmi_init, rsmi_shut_down,
 * rsmi_status_string, rsmi_num_monitor_devices). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As in AMD's rocm_smi.h, written independently of the backend's. */
typedef enum {
    RSMI_STATUS_SUCCESS = 0,
    RSMI_STATUS_INVALID_ARGS = 1,
    RSMI_STATUS_NOT_SUPPORTED = 2,
    RSMI_STATUS_PERMISSION = 4,
    RSMI_STATUS_INTERNAL_EXCEPTION = 6,
    RSMI_STATUS_INIT_ERROR = 8,
    RSMI_STATUS_NOT_FOUND = 10,
    RSMI_STATUS_UNKNOWN_ERROR = 0x7fffffff
} rsmi_status_t;

#define FAKE_MAX_GPUS 8
#define FAKE_MAX_SEQ 16
#define GIB (1024ULL * 1024 * 1024)

static struct {
    int initialised;
    uint32_t count;
    uint64_t power_uw, socket_uw;
    float resolution;
    uint64_t energy_seq[FAKE_MAX_SEQ];
    int energy_n, energy_calls[FAKE_MAX_GPUS];
    char not_supported[256], no_permission[256], fail[256];
} fake;

/* Exported entry points (prototypes keep -Wmissing-prototypes quiet). */
rsmi_status_t rsmi_init(uint64_t flags);
rsmi_status_t rsmi_shut_down(void);
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **text);
rsmi_status_t rsmi_num_monitor_devices(uint32_t *n);
#ifndef FAKE_RSMI_MINIMAL
rsmi_status_t rsmi_dev_name_get(uint32_t dv, char *name, size_t len);
rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid);
rsmi_status_t rsmi_version_str_get(int component, char *ver, uint32_t len);
rsmi_status_t rsmi_dev_energy_count_get(uint32_t dv, uint64_t *count, float *resolution,
                                        uint64_t *timestamp);
rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *uw);
rsmi_status_t rsmi_dev_power_get(uint32_t dv, uint64_t *uw, int *type);
rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv, uint32_t sensor, uint64_t *uw);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv, int type, uint64_t *bytes);
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv, int type, uint64_t *bytes);
rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv, uint32_t *pct);
rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv, uint32_t *pct);
rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor, int metric, int64_t *mc);
#endif

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static void env_list(const char *name, char *dst, size_t n)
{
    const char *v = getenv(name);
    snprintf(dst, n, ",%s,", v ? v : "");
}

static void parse_energy_seq(void)
{
    const char *v = getenv("FAKE_RSMI_ENERGY_COUNTS");
    char *end;
    fake.energy_n = 0;
    while (v && *v && fake.energy_n < FAKE_MAX_SEQ) {
        fake.energy_seq[fake.energy_n++] = strtoull(v, &end, 10);
        v = *end == ',' ? end + 1 : NULL;
    }
}

rsmi_status_t rsmi_init(uint64_t flags)
{
    memset(&fake, 0, sizeof fake);
    if (flags != 0)
        return RSMI_STATUS_INVALID_ARGS;
    rsmi_status_t r = (rsmi_status_t)env_u64("FAKE_RSMI_INIT", 0);
    if (r != RSMI_STATUS_SUCCESS)
        return r;
    fake.count = (uint32_t)env_u64("FAKE_RSMI_DEVICES", 1);
    if (fake.count > FAKE_MAX_GPUS)
        fake.count = FAKE_MAX_GPUS;
    fake.power_uw = env_u64("FAKE_RSMI_POWER_UW", 245000000);
    fake.socket_uw = env_u64("FAKE_RSMI_SOCKET_POWER_UW", 301000000);
    const char *res = getenv("FAKE_RSMI_RESOLUTION");
    fake.resolution = res && *res ? strtof(res, NULL) : 15.3f;
    env_list("FAKE_RSMI_NOT_SUPPORTED", fake.not_supported, sizeof fake.not_supported);
    env_list("FAKE_RSMI_NO_PERMISSION", fake.no_permission, sizeof fake.no_permission);
    env_list("FAKE_RSMI_FAIL", fake.fail, sizeof fake.fail);
    parse_energy_seq();
    fake.initialised = 1;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_shut_down(void)
{
    fake.initialised = 0;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **text)
{
    if (!text)
        return RSMI_STATUS_INVALID_ARGS;
    switch (status) {
    case RSMI_STATUS_SUCCESS:
        *text = "RSMI_STATUS_SUCCESS: The function has been executed successfully.";
        return RSMI_STATUS_SUCCESS;
    case RSMI_STATUS_NOT_SUPPORTED:
        *text = "RSMI_STATUS_NOT_SUPPORTED: The requested information or action is not "
                "available for the given input.";
        return RSMI_STATUS_SUCCESS;
    case RSMI_STATUS_PERMISSION:
        *text = "RSMI_STATUS_PERMISSION: The user ID of the calling process does not have "
                "sufficient permission to execute a command.";
        return RSMI_STATUS_SUCCESS;
    case RSMI_STATUS_INTERNAL_EXCEPTION:
        *text = "RSMI_STATUS_INTERNAL_EXCEPTION: An internal exception was caught";
        return RSMI_STATUS_SUCCESS;
    case RSMI_STATUS_INIT_ERROR:
        *text = "RSMI_STATUS_INIT_ERROR: An error occurred during initialization, during "
                "monitor discovery or when initializing internal data structures";
        return RSMI_STATUS_SUCCESS;
    default:
        *text = NULL; /* like the real one for values it does not know */
        return RSMI_STATUS_INVALID_ARGS;
    }
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t *n)
{
    if (!fake.initialised)
        return RSMI_STATUS_INIT_ERROR;
    *n = fake.count;
    return RSMI_STATUS_SUCCESS;
}

#ifndef FAKE_RSMI_MINIMAL
/* The scripted outcome of reading `field` from dv: 0 or an error status. */
static rsmi_status_t outcome(uint32_t dv, const char *field)
{
    if (!fake.initialised)
        return RSMI_STATUS_INIT_ERROR;
    if (dv >= fake.count)
        return RSMI_STATUS_INVALID_ARGS;
    char key[40];
    snprintf(key, sizeof key, ",%s,", field);
    if (strstr(fake.not_supported, key))
        return RSMI_STATUS_NOT_SUPPORTED;
    if (strstr(fake.no_permission, key))
        return RSMI_STATUS_PERMISSION;
    if (strstr(fake.fail, key))
        return RSMI_STATUS_INTERNAL_EXCEPTION;
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t dv, char *name, size_t len)
{
    rsmi_status_t r = outcome(dv, "name");
    if (r == RSMI_STATUS_SUCCESS)
        snprintf(name, len, "AMD Instinct MI300X");
    return r;
}

rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid)
{
    rsmi_status_t r = outcome(dv, "pci");
    if (r == RSMI_STATUS_SUCCESS) /* domain 0, bus 0x0c + dv, device 0, function 0 */
        *bdfid = (uint64_t)(0x0cu + dv) << 8;
    return r;
}

rsmi_status_t rsmi_version_str_get(int component, char *ver, uint32_t len)
{
    if (component != 0) /* RSMI_SW_COMP_DRIVER is the only component */
        return RSMI_STATUS_INVALID_ARGS;
    rsmi_status_t r = outcome(0, "driver");
    if (r == RSMI_STATUS_SUCCESS)
        snprintf(ver, len, "6.8.5");
    return r;
}

rsmi_status_t rsmi_dev_energy_count_get(uint32_t dv, uint64_t *count, float *resolution,
                                        uint64_t *timestamp)
{
    rsmi_status_t r = outcome(dv, "energy");
    if (r != RSMI_STATUS_SUCCESS)
        return r;
    int k = fake.energy_calls[dv]++;
    *count =
        fake.energy_n == 0 ? 1000000 : fake.energy_seq[k < fake.energy_n ? k : fake.energy_n - 1];
    *resolution = fake.resolution;
    *timestamp = 1000000000ULL * (uint64_t)(k + 1);
    return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *uw)
{
    rsmi_status_t r = outcome(dv, "power_ave");
    if (r == RSMI_STATUS_SUCCESS && sensor != 0)
        return RSMI_STATUS_INVALID_ARGS;
    if (r == RSMI_STATUS_SUCCESS)
        *uw = fake.power_uw;
    return r;
}

rsmi_status_t rsmi_dev_power_get(uint32_t dv, uint64_t *uw, int *type)
{
    rsmi_status_t r = outcome(dv, "power");
    if (r == RSMI_STATUS_SUCCESS) {
        *uw = fake.socket_uw;
        *type = 1; /* RSMI_CURRENT_POWER */
    }
    return r;
}

rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv, uint32_t sensor, uint64_t *uw)
{
    rsmi_status_t r = outcome(dv, "power_cap");
    if (r == RSMI_STATUS_SUCCESS && sensor != 0)
        return RSMI_STATUS_INVALID_ARGS;
    if (r == RSMI_STATUS_SUCCESS)
        *uw = 750000000;
    return r;
}

/* Only VRAM (0) is scripted: another type shows the backend asked wrong. */
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv, int type, uint64_t *bytes)
{
    rsmi_status_t r = outcome(dv, "memory_usage");
    if (r == RSMI_STATUS_SUCCESS && type != 0)
        return RSMI_STATUS_INVALID_ARGS;
    if (r == RSMI_STATUS_SUCCESS)
        *bytes = 24 * GIB;
    return r;
}

rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv, int type, uint64_t *bytes)
{
    rsmi_status_t r = outcome(dv, "memory_total");
    if (r == RSMI_STATUS_SUCCESS && type != 0)
        return RSMI_STATUS_INVALID_ARGS;
    if (r == RSMI_STATUS_SUCCESS)
        *bytes = 192 * GIB;
    return r;
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv, uint32_t *pct)
{
    rsmi_status_t r = outcome(dv, "busy");
    if (r == RSMI_STATUS_SUCCESS)
        *pct = 73;
    return r;
}

rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv, uint32_t *pct)
{
    rsmi_status_t r = outcome(dv, "mem_busy");
    if (r == RSMI_STATUS_SUCCESS)
        *pct = 31;
    return r;
}

/* Sensors: 0 edge, 1 junction; metric 0 is the current value. */
rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor, int metric, int64_t *mc)
{
    rsmi_status_t r = outcome(dv, sensor == 0 ? "temp_edge" : "temp_junction");
    if (r == RSMI_STATUS_SUCCESS && (sensor > 1 || metric != 0))
        return RSMI_STATUS_INVALID_ARGS;
    if (r == RSMI_STATUS_SUCCESS)
        *mc = sensor == 0 ? 51500 : 68250;
    return r;
}
#endif
