/* nvidia-smi and rocm-smi output: the CSV of nvidia-smi --query-gpu and
 * the JSON of rocm-smi --json, parsed from bytes (fuzz_smi feeds them). */
#define _GNU_SOURCE /* memmem */
#include "telem_smi.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "telem_smi_internal.h"
#include "telem_sysfs.h"

/* ---- small text helpers ---- */

/* Copies s[n] into dst[len] (truncated, NUL-terminated), control bytes
 * replaced by '?': the text is shown and stored as it is. */
void tc_smi_copy_clean(char *dst, size_t len, const char *s, size_t n)
{
    if (n > len - 1)
        n = len - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = c < 0x20 || c == 0x7F ? '?' : (char)c;
    }
    dst[n] = '\0';
}

/* Whether needle occurs in hay[n], ignoring ASCII case. */
int tc_smi_contains_ci(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (strncasecmp(hay + i, needle, m) == 0)
            return 1;
    return 0;
}

void tc_smi_trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

/* A value the tool gives when it has none: "", "N/A", "[N/A]", "[Not
 * Supported]" or any other "[...]". */
static int not_available(const char *s, size_t n)
{
    return n == 0 || (n == 3 && strncasecmp(s, "N/A", 3) == 0) || (s[0] == '[' && s[n - 1] == ']');
}

/* Parses all of s[n] as [-]digits[.digits] times 10^scale (scale 0..3;
 * fraction digits past it are dropped). 0 when it is anything else or
 * does not fit an int64. */
static int parse_scaled(const char *s, size_t n, int allow_neg, int scale, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-' && allow_neg) {
        neg = 1;
        i++;
    }
    int64_t v = 0;
    size_t digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (v > (INT64_MAX - (s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    if (digits == 0)
        return 0;
    int frac = 0;
    if (i < n && s[i] == '.') {
        i++;
        size_t fd = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++)
            if (frac < scale) {
                if (v > (INT64_MAX - (s[i] - '0')) / 10)
                    return 0;
                v = v * 10 + (s[i] - '0');
                frac++;
            }
        if (fd == 0)
            return 0;
    }
    if (i != n)
        return 0;
    for (; frac < scale; frac++) {
        if (v > INT64_MAX / 10)
            return 0;
        v *= 10;
    }
    *out = neg ? -v : v;
    return 1;
}

/* ---- nvidia-smi ---- */

static const char *const col_names[TC_SMI_NCOL] = {"index",           "name",
                                                   "driver_version",  "power.draw",
                                                   "utilization.gpu", "utilization.memory",
                                                   "memory.used",     "memory.total",
                                                   "temperature.gpu", "clocks.sm",
                                                   "clocks.mem",      "power.limit",
                                                   "pci.bus_id"};

const char *tc_smi_col_name(int col)
{
    return col >= 0 && col < TC_SMI_NCOL ? col_names[col] : NULL;
}

unsigned tc_smi_nvidia_columns(const char *text, size_t len)
{
    unsigned cols = TC_SMI_REQUIRED_COLS;
    for (int c = 0; c < TC_SMI_NCOL; c++) {
        char quoted[64];
        int qn = snprintf(quoted, sizeof quoted, "\"%s\"", col_names[c]);
        if (text && memmem(text, len, quoted, (size_t)qn))
            cols |= 1u << c;
    }
    return cols;
}

/* Sets the field of column col from the trimmed value v[n]. 0 when v is
 * neither "not available" nor a number of the column's kind. */
static int set_nvidia_field(tc_smi_gpu *g, int col, const char *v, size_t n)
{
    tc_telem_sample *s = &g->s;
    int64_t x = 0;
    if (col == TC_SMI_NAME || col == TC_SMI_DRIVER || col == TC_SMI_BUS_ID) {
        if (not_available(v, n))
            return 1;
        char *dst = col == TC_SMI_NAME ? g->name : col == TC_SMI_DRIVER ? g->driver : g->bus_id;
        tc_smi_copy_clean(dst, col == TC_SMI_NAME ? sizeof g->name : sizeof g->driver, v, n);
        return 1;
    }
    if (not_available(v, n))
        return col != TC_SMI_INDEX; /* a line without its index is no GPU */
    /* nvidia-smi prints only watts with decimals; elsewhere a '.' is wrong. */
    if (col != TC_SMI_POWER && col != TC_SMI_POWER_LIMIT && memchr(v, '.', n))
        return 0;
    switch (col) {
    case TC_SMI_INDEX:
        if (!parse_scaled(v, n, 0, 0, &x) || x > 1000000)
            return 0;
        g->index = (int)x;
        return 1;
    case TC_SMI_POWER:
    case TC_SMI_POWER_LIMIT: /* W with decimals -> mW */
        if (!parse_scaled(v, n, 0, 3, &x))
            return 0;
        if (col == TC_SMI_POWER) {
            s->power_mw = x;
            s->power_instant = 0; /* power.draw: 1 s average on Ampere and newer */
            s->valid |= TC_TF_POWER;
        } else {
            s->power_limit_mw = x;
            s->valid |= TC_TF_POWER_LIMIT;
        }
        return 1;
    case TC_SMI_MEM_USED:
    case TC_SMI_MEM_TOTAL: /* MiB -> bytes */
        if (!parse_scaled(v, n, 0, 0, &x) || x > INT64_MAX / 1048576)
            return 0;
        if (col == TC_SMI_MEM_USED) {
            s->mem_used_bytes = x * 1048576;
            s->valid |= TC_TF_MEM_USED;
        } else {
            s->mem_total_bytes = x * 1048576;
            s->valid |= TC_TF_MEM_TOTAL;
        }
        return 1;
    case TC_SMI_TEMP: /* C -> milli-C */
        if (!parse_scaled(v, n, 1, 3, &x) || x > 1000000000 || x < -1000000000)
            return 0;
        s->temp_mc = (int)x;
        s->valid |= TC_TF_TEMP;
        return 1;
    default: /* utilisation %, clocks MHz: plain integers */
        if (!parse_scaled(v, n, 0, 0, &x) || x > 1000000000)
            return 0;
        switch (col) {
        case TC_SMI_UTIL_GPU:
            s->util_pct = (int)x;
            s->valid |= TC_TF_UTIL_GPU;
            break;
        case TC_SMI_UTIL_MEM:
            s->mem_util_pct = (int)x;
            s->valid |= TC_TF_UTIL_MEM;
            break;
        case TC_SMI_CLOCK_SM:
            s->clock_sm_mhz = (int)x;
            s->valid |= TC_TF_CLOCK_SM;
            break;
        default:
            s->clock_mem_mhz = (int)x;
            s->valid |= TC_TF_CLOCK_MEM;
            break;
        }
        return 1;
    }
}

/* Parses one non-blank line into g. */
static tc_err parse_nvidia_line(const char *line, size_t len, int lineno, unsigned cols,
                                tc_smi_gpu *g, char *err, size_t errlen)
{
    int want = 0;
    for (int c = 0; c < TC_SMI_NCOL; c++)
        want += (cols >> c) & 1u;
    int got = 1;
    for (size_t i = 0; i < len; i++)
        got += line[i] == ',';
    if (got != want)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "nvidia-smi output line %d: expected %d comma-separated fields, got %d",
                       lineno, want, got);
    memset(g, 0, sizeof *g);
    size_t pos = 0;
    for (int c = 0; c < TC_SMI_NCOL; c++) {
        if (!(cols & (1u << c)))
            continue;
        const char *v = line + pos;
        const char *comma = memchr(v, ',', len - pos);
        size_t n = comma ? (size_t)(comma - v) : len - pos;
        pos += n + (comma ? 1 : 0);
        tc_smi_trim(&v, &n);
        if (!set_nvidia_field(g, c, v, n)) {
            char shown[48];
            tc_smi_copy_clean(shown, sizeof shown, v, n);
            return tc_fail(err, errlen, TC_ERR_PARSE,
                           "nvidia-smi output line %d, %s: '%s' is not %s", lineno, col_names[c],
                           shown, c == TC_SMI_INDEX ? "a GPU index" : "a number");
        }
    }
    return TC_OK;
}

tc_err tc_smi_parse_nvidia_csv(const char *text, size_t len, unsigned cols, tc_smi_gpu *out,
                               int max, int *n, char *err, size_t errlen)
{
    *n = 0;
    if ((cols & TC_SMI_REQUIRED_COLS) != TC_SMI_REQUIRED_COLS || (cols & ~TC_SMI_ALL_COLS))
        return tc_fail(err, errlen, TC_ERR_INVALID, "nvidia-smi: the query lacks index or name");
    size_t pos = 0;
    int lineno = 0;
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);
        lineno++;
        const char *t = line;
        size_t tl = ll;
        tc_smi_trim(&t, &tl);
        if (tl == 0)
            continue;
        tc_err rc = *n >= max ? tc_fail(err, errlen, TC_ERR_INVALID,
                                        "nvidia-smi output line %d: more than %d GPUs", lineno, max)
                              : parse_nvidia_line(t, tl, lineno, cols, &out[*n], err, errlen);
        if (rc != TC_OK) {
            *n = 0;
            return rc;
        }
        (*n)++;
    }
    return TC_OK;
}

/* ---- rocm-smi ---- */

/* "cardN" (N without leading zeros, at most 6 digits): N, else -1. */
static int card_index(const char *key)
{
    if (strncmp(key, "card", 4) != 0)
        return -1;
    const char *d = key + 4;
    size_t nd = strlen(d);
    if (nd == 0 || nd > 6 || (d[0] == '0' && nd > 1) || strspn(d, "0123456789") != nd)
        return -1;
    return atoi(d);
}

/* A JSON value as a number times 10^scale: strings "35.0" and numbers. */
static int json_scaled(json_t *v, int allow_neg, int scale, int64_t *out)
{
    static const double pow10[] = {1, 10, 100, 1000};
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        tc_smi_trim(&s, &n);
        return parse_scaled(s, n, allow_neg, scale, out);
    }
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if ((!allow_neg && x < 0) || x > INT64_MAX / 1000 || x < -(INT64_MAX / 1000))
            return 0;
        *out = (int64_t)x * (int64_t)pow10[scale];
        return 1;
    }
    if (json_is_real(v)) {
        double x = json_real_value(v) * pow10[scale];
        if (!isfinite(x) || (!allow_neg && x < 0) || fabs(x) >= 9.2e18)
            return 0;
        *out = (int64_t)x;
        return 1;
    }
    return 0;
}

static int fits_int(int64_t x)
{
    return x >= -2000000000 && x <= 2000000000;
}

/* Sets the field a rocm-smi key names, when its value is a number. */
static void set_rocm_field(tc_smi_gpu *g, const char *key, json_t *v, int *power_is_current)
{
    tc_telem_sample *s = &g->s;
    size_t kl = strlen(key);
    int64_t x = 0;
    if (tc_smi_contains_ci(key, kl, "card series") || tc_smi_contains_ci(key, kl, "card model")) {
        int series = tc_smi_contains_ci(key, kl, "card series");
        const char *t = json_string_value(v);
        size_t tn = t ? json_string_length(v) : 0;
        tc_smi_trim(&t, &tn);
        if (t && !not_available(t, tn) && (series || g->name[0] == '\0'))
            tc_smi_copy_clean(g->name, sizeof g->name, t, tn);
    } else if (tc_smi_contains_ci(key, kl, "power") && tc_smi_contains_ci(key, kl, "(w)") &&
               !tc_smi_contains_ci(key, kl, "max") && !tc_smi_contains_ci(key, kl, "cap") &&
               !tc_smi_contains_ci(key, kl, "limit")) {
        int current = tc_smi_contains_ci(key, kl, "current");
        if ((current || !*power_is_current) && json_scaled(v, 0, 3, &x)) {
            s->power_mw = x;
            s->power_instant = current;
            s->valid |= TC_TF_POWER;
            *power_is_current = current;
        }
    } else if (strncasecmp(key, "gpu use", 7) == 0) {
        if (json_scaled(v, 0, 0, &x) && fits_int(x)) {
            s->util_pct = (int)x;
            s->valid |= TC_TF_UTIL_GPU;
        }
    } else if (tc_smi_contains_ci(key, kl, "vram")) {
        if (!json_scaled(v, 0, 0, &x))
            return;
        if (tc_smi_contains_ci(key, kl, "used")) {
            s->mem_used_bytes = x;
            s->valid |= TC_TF_MEM_USED;
        } else if (tc_smi_contains_ci(key, kl, "total")) {
            s->mem_total_bytes = x;
            s->valid |= TC_TF_MEM_TOTAL;
        }
    } else if (tc_smi_contains_ci(key, kl, "memory") && (tc_smi_contains_ci(key, kl, "use (%)") ||
                                                         tc_smi_contains_ci(key, kl, "activity"))) {
        if (json_scaled(v, 0, 0, &x) && fits_int(x)) {
            s->mem_util_pct = (int)x;
            s->valid |= TC_TF_UTIL_MEM;
        }
    } else if (tc_smi_contains_ci(key, kl, "temperature")) {
        if (!json_scaled(v, 1, 3, &x) || !fits_int(x))
            return;
        if (tc_smi_contains_ci(key, kl, "edge")) {
            s->temp_mc = (int)x;
            s->valid |= TC_TF_TEMP;
        } else if (tc_smi_contains_ci(key, kl, "junction") ||
                   tc_smi_contains_ci(key, kl, "hotspot")) {
            s->temp_hot_mc = (int)x;
            s->valid |= TC_TF_TEMP_HOT;
        }
    } else if (tc_smi_contains_ci(key, kl, "accumulated energy")) {
        if (json_scaled(v, 0, 0, &x)) {
            s->energy_uj = (uint64_t)x;
            s->valid |= TC_TF_ENERGY;
        }
    }
}

static int by_index(const void *a, const void *b)
{
    const tc_smi_gpu *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

tc_err tc_smi_parse_rocm_json(const char *text, size_t len, tc_smi_gpu *out, int max, int *n,
                              char *err, size_t errlen)
{
    *n = 0;
    /* rocm-smi may print warnings before its JSON. */
    size_t start = 0;
    int skipped = 0;
    while (start < len && text[start] != '{') {
        const char *nl = memchr(text + start, '\n', len - start);
        if (!nl) {
            start = len;
            break;
        }
        start = (size_t)(nl - text) + 1;
        skipped++;
    }
    if (start >= len)
        return tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output: no JSON object");
    json_error_t je;
    json_t *root = json_loadb(text + start, len - start, JSON_DISABLE_EOF_CHECK, &je);
    if (!root)
        return tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output line %d, column %d: %s",
                       je.line + skipped, je.column, je.text);
    tc_err rc = TC_OK;
    if (!json_is_object(root)) {
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output: not a JSON object");
        goto done;
    }
    const char *key;
    json_t *card;
    json_object_foreach(root, key, card)
    {
        int idx = card_index(key);
        if (idx < 0 || !json_is_object(card))
            continue;
        if (*n >= max) {
            rc = tc_fail(err, errlen, TC_ERR_INVALID, "rocm-smi output: more than %d cards", max);
            goto done;
        }
        tc_smi_gpu *g = &out[(*n)++];
        memset(g, 0, sizeof *g);
        g->index = idx;
        int power_is_current = 0;
        const char *fk;
        json_t *fv;
        json_object_foreach(card, fk, fv)
        {
            set_rocm_field(g, fk, fv, &power_is_current);
        }
    }
    if (*n == 0) {
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output: no \"cardN\" object");
        goto done;
    }
    qsort(out, (size_t)*n, sizeof *out, by_index);
done:
    json_decref(root);
    if (rc != TC_OK)
        *n = 0;
    return rc;
}
