/* libFuzzer target: the nvidia-smi and rocm-smi output parsers and the
 * --help-query-gpu column probe.
 *
 * Byte 0 picks the reader (modulo 3): 0 nvidia-smi CSV, 1 rocm-smi JSON,
 * 2 the column probe. For the CSV, bytes 1-2 are the column mask (little
 * endian, masked to the known columns; index and name always added) and
 * the rest is the output; for the others the rest is the output. Seeds in
 * corpus/smi are the fixtures of tests/fixtures/smi with that prefix.
 *
 * Invariants: the count stays within [0, max] (0 on error); a GPU has
 * valid bits only among those its reader can set (for the CSV, only for
 * queried columns), a field without its bit is 0, strings are
 * NUL-terminated and free of control bytes, the error text is
 * NUL-terminated. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telem_smi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_GPUS 8

static void check(int ok)
{
    if (!ok)
        __builtin_trap();
}

static void check_str(const char *s, size_t len)
{
    const char *end = memchr(s, '\0', len);
    check(end != NULL);
    for (const char *p = s; p < end; p++)
        check((unsigned char)*p >= 0x20 && *p != 0x7F);
}

/* The TC_TF_* bits each CSV column sets. */
static uint32_t csv_bits(unsigned cols)
{
    static const struct {
        int col;
        uint32_t bit;
    } map[] = {{TC_SMI_POWER, TC_TF_POWER},
               {TC_SMI_UTIL_GPU, TC_TF_UTIL_GPU},
               {TC_SMI_UTIL_MEM, TC_TF_UTIL_MEM},
               {TC_SMI_MEM_USED, TC_TF_MEM_USED},
               {TC_SMI_MEM_TOTAL, TC_TF_MEM_TOTAL},
               {TC_SMI_TEMP, TC_TF_TEMP},
               {TC_SMI_CLOCK_SM, TC_TF_CLOCK_SM},
               {TC_SMI_CLOCK_MEM, TC_TF_CLOCK_MEM},
               {TC_SMI_POWER_LIMIT, TC_TF_POWER_LIMIT}};
    uint32_t bits = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (cols & (1u << map[i].col))
            bits |= map[i].bit;
    return bits;
}

static void check_gpu(const tc_smi_gpu *g, uint32_t allowed, int nvidia)
{
    const tc_telem_sample *s = &g->s;
    check((s->valid & ~allowed) == 0);
    check(s->mono_ns == 0);
    check(g->index >= 0);
    check_str(g->name, sizeof g->name);
    check_str(g->driver, sizeof g->driver);
    check_str(g->bus_id, sizeof g->bus_id);
    if (!nvidia)
        check(g->driver[0] == '\0' && g->bus_id[0] == '\0');
    /* a field without its bit reads 0, never a stale or half value */
    check((s->valid & TC_TF_POWER) || (s->power_mw == 0 && s->power_instant == 0));
    check((s->valid & TC_TF_ENERGY) || s->energy_uj == 0);
    check((s->valid & TC_TF_UTIL_GPU) || s->util_pct == 0);
    check((s->valid & TC_TF_UTIL_MEM) || s->mem_util_pct == 0);
    check((s->valid & TC_TF_MEM_USED) || s->mem_used_bytes == 0);
    check((s->valid & TC_TF_MEM_TOTAL) || s->mem_total_bytes == 0);
    check((s->valid & TC_TF_TEMP) || s->temp_mc == 0);
    check((s->valid & TC_TF_TEMP_HOT) || s->temp_hot_mc == 0);
    check((s->valid & TC_TF_CLOCK_SM) || s->clock_sm_mhz == 0);
    check((s->valid & TC_TF_CLOCK_MEM) || s->clock_mem_mhz == 0);
    check((s->valid & TC_TF_POWER_LIMIT) || s->power_limit_mw == 0);
    /* only temperatures may be negative */
    check(s->power_mw >= 0 && s->power_limit_mw >= 0 && s->util_pct >= 0 && s->mem_util_pct >= 0 &&
          s->mem_used_bytes >= 0 && s->mem_total_bytes >= 0 && s->clock_sm_mhz >= 0 &&
          s->clock_mem_mhz >= 0);
    if (nvidia)
        check(s->power_instant == 0 && s->mem_used_bytes % 1048576 == 0 &&
              s->mem_total_bytes % 1048576 == 0 && s->temp_mc % 1000 == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] % 3;
    const uint8_t *body = data + 1;
    size_t len = size - 1;
    unsigned cols = 0;
    if (which == 0) {
        if (size < 3)
            return 0;
        cols = ((unsigned)data[1] | (unsigned)data[2] << 8) & TC_SMI_ALL_COLS;
        cols |= TC_SMI_REQUIRED_COLS;
        body = data + 3;
        len = size - 3;
    }
    /* An exact-size copy, so ASan sees any read past the end. */
    char *text = malloc(len ? len : 1);
    if (!text)
        return 0;
    if (len)
        memcpy(text, body, len);

    if (which == 2) {
        unsigned got = tc_smi_nvidia_columns(text, len);
        check((got & ~TC_SMI_ALL_COLS) == 0);
        check((got & TC_SMI_REQUIRED_COLS) == TC_SMI_REQUIRED_COLS);
        free(text);
        return 0;
    }

    tc_smi_gpu *gpus = malloc(MAX_GPUS * sizeof *gpus);
    if (!gpus) {
        free(text);
        return 0;
    }
    memset(gpus, 0xA5, MAX_GPUS * sizeof *gpus); /* what the parser leaves must not leak */
    char err[256];
    memset(err, 'x', sizeof err);
    int n = -1;
    tc_err rc;
    uint32_t allowed;
    if (which == 0) {
        rc = tc_smi_parse_nvidia_csv(text, len, cols, gpus, MAX_GPUS, &n, err, sizeof err);
        allowed = csv_bits(cols);
    } else {
        rc = tc_smi_parse_rocm_json(text, len, gpus, MAX_GPUS, &n, err, sizeof err);
        allowed = TC_TF_POWER | TC_TF_ENERGY | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM | TC_TF_MEM_USED |
                  TC_TF_MEM_TOTAL | TC_TF_TEMP | TC_TF_TEMP_HOT;
    }
    check(n >= 0 && n <= MAX_GPUS);
    if (rc != TC_OK) {
        check(n == 0);
        check(rc == TC_ERR_PARSE || rc == TC_ERR_INVALID);
        check(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
    }
    for (int i = 0; i < n; i++) {
        check_gpu(&gpus[i], allowed, which == 0);
        if (which == 1 && i > 0)
            check(gpus[i].index > gpus[i - 1].index); /* sorted, no duplicates */
    }
    free(gpus);
    free(text);
    return 0;
}
