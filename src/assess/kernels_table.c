/* The kernel table itself: kernels summed by name through a hash index,
 * the numbers of its cells, the bounds, and the checks once it is read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_file.h"
#include "core/tc_number.h"
#include "kernels_internal.h"

/* Sums beyond this are no profile: it keeps every sum far from overflow. */
#define MAX_NS 9000000000000000000LL

tc_err tc_kernels_read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    if (!path || !text || !len)
        return TC_ERR_INVALID;
    return tc_read_file(path, TC_KERNELS_MAX_FILE_BYTES, "a kernel table", text, len, err, errlen);
}

const char *tc_kernels_format_name(tc_kernels_format f)
{
    static const char *const names[] = {
        [TC_KFMT_NSYS] = "nsys_kern_sum",
        [TC_KFMT_ROCPROF_STATS] = "rocprofv3_kernel_stats",
        [TC_KFMT_ROCPROF_TRACE] = "rocprofv3_kernel_trace",
        [TC_KFMT_ROCPD_TRACE] = "rocpd_kernel_trace",
        [TC_KFMT_ROCPROF_V1] = "rocprof_stats",
        [TC_KFMT_TORCH_TABLE] = "pytorch_table",
        [TC_KFMT_TORCH_CSV] = "pytorch_csv",
    };
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

void tc_kernels_header_list(const tc_csv_row *h, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < h->n; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "", h->fields[i]);
    }
}

/* ---- numbers ---- */

/* ns per unit of a unit spelling, or 0 when it is none. */
static int64_t unit_scale(const char *u)
{
    static const struct {
        const char *unit;
        int64_t ns;
    } units[] = {{"ns", 1},           {"nsec", 1},         {"us", 1000},    {"usec", 1000},
                 {"\xc2\xb5s", 1000}, {"\xce\xbcs", 1000}, {"ms", 1000000}, {"msec", 1000000},
                 {"s", 1000000000},   {"sec", 1000000000}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(u, units[i].unit) == 0)
            return units[i].ns;
    return 0;
}

/* A plain number (no sign) of `scale` ns each into *out. */
static tc_kernels_ns_status plain_ns(const char *s, int64_t scale, int64_t *out)
{
    size_t digits = strspn(s, "0123456789");
    if (digits && !s[digits] && digits <= 18) { /* whole: exact */
        long long v = strtoll(s, NULL, 10);
        if (v > MAX_NS / scale)
            return TC_KNS_RANGE;
        *out = (int64_t)v * scale;
        return TC_KNS_OK;
    }
    double v;
    if (tc_parse_plain_number(s, &v) < 0)
        return TC_KNS_BAD;
    double ns = v * (double)scale;
    if (!(ns < (double)MAX_NS))
        return TC_KNS_RANGE;
    *out = (int64_t)llround(ns);
    return TC_KNS_OK;
}

/* Splits "12.5 us" into the number (into num) and the unit after it. */
static const char *split_unit(const char *s, char *num, size_t numlen)
{
    size_t n = strspn(s, "0123456789.eE+");
    while (n && (s[n - 1] == 'e' || s[n - 1] == 'E')) /* "1e" of "1es": no exponent */
        n--;
    if (n >= numlen)
        n = numlen - 1;
    memcpy(num, s, n);
    num[n] = '\0';
    const char *u = s + n;
    while (*u == ' ')
        u++;
    return u;
}

tc_kernels_ns_status tc_kernels_ns(const char *s, int64_t scale, int units, int64_t *out)
{
    if (!s[0])
        return TC_KNS_EMPTY;
    if (s[0] == '-')
        return s[1] >= '0' && s[1] <= '9' ? TC_KNS_NEGATIVE : TC_KNS_BAD;
    tc_kernels_ns_status st = plain_ns(s, scale, out);
    if (st != TC_KNS_BAD)
        return st;
    char num[64];
    const char *u = split_unit(s, num, sizeof num);
    int64_t us = u[0] ? unit_scale(u) : 0;
    if (!num[0] || !us)
        return TC_KNS_BAD;
    if (!units)
        return TC_KNS_UNIT;
    return plain_ns(num, us, out);
}

tc_err tc_kernels_time_error(const char *name, int line, const char *column, const char *kernel,
                             const char *cell, tc_kernels_ns_status st, const char *unit, char *err,
                             size_t errlen)
{
    const char *kn = kernel && kernel[0] ? kernel : "the row";
    switch (st) {
    case TC_KNS_EMPTY:
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %.200s is empty (every row needs a time)", name, line, column,
                       kn);
    case TC_KNS_NEGATIVE:
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %.200s is negative ('%.40s'): a time is 0 or more", name, line,
                       column, kn, cell);
    case TC_KNS_UNIT:
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %.200s: '%.40s' carries a unit, but the column's unit is %s: "
                       "times with units mixed (write plain numbers in the column's unit)",
                       name, line, column, kn, cell, unit);
    case TC_KNS_RANGE:
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %.200s: '%.40s' is beyond 9e18 ns, no profile's time", name,
                       line, column, kn, cell);
    default:
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: %s of %.200s: '%.40s' is not a time (expected a number%s%s)", name,
                       line, column, kn, cell, unit ? " of " : "", unit ? unit : "");
    }
}

int tc_kernels_count(const char *s, uint64_t *out)
{
    size_t n = strspn(s, "0123456789");
    if (!n || s[n] || n > 19)
        return -1;
    *out = strtoull(s, NULL, 10);
    return 0;
}

void tc_kernels_clean_name(char *name)
{
    static const char *const suffixes[] = {" [clone .kd]", "[clone .kd]", ".kd"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n >= k && strcmp(name + n - k, suffixes[i]) == 0) {
            name[n - k] = '\0';
            n -= k;
            break;
        }
    }
    while (n && name[n - 1] == ' ')
        name[--n] = '\0';
}

/* ---- the table ---- */

void tc_kernels_table_free(tc_kernel_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->k[i].name);
    free(t->k);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)h;
}

/* The slot of kname: the one holding it, or the free one where it goes
 * (the index is never full: grown at half). */
static size_t *slot_of(const tc_kernel_table *t, const char *kname)
{
    size_t mask = t->n_slots - 1;
    for (size_t i = name_hash(kname) & mask;; i = (i + 1) & mask) {
        size_t *s = &t->slots[i];
        if (*s == 0 || strcmp(t->k[*s - 1].name, kname) == 0)
            return s;
    }
}

static tc_err grow(tc_kernel_table *t)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        tc_kernel *k = realloc(t->k, cap * sizeof *k);
        if (!k)
            return TC_ERR_NOMEM;
        t->k = k;
        t->cap = cap;
    }
    if (t->n_slots && (t->n + 1) * 2 <= t->n_slots)
        return TC_OK;
    size_t n = t->n_slots ? t->n_slots * 2 : 128;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return TC_ERR_NOMEM;
    free(t->slots);
    t->slots = slots;
    t->n_slots = n;
    for (size_t i = 0; i < t->n; i++)
        *slot_of(t, t->k[i].name) = i + 1;
    return TC_OK;
}

tc_err tc_kernels_count_row(tc_kernel_table *t, const char *name, int line, char *err,
                            size_t errlen)
{
    if (++t->rows <= TC_KERNELS_MAX_ROWS)
        return TC_OK;
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "%s:%d: more than %u rows: profile fewer steps (or give the kernel summary "
                   "instead of the trace)",
                   name, line, TC_KERNELS_MAX_ROWS);
}

static tc_err new_kernel(tc_kernel_table *t, const char *name, int line, const char *kname,
                         size_t **slot, char *err, size_t errlen)
{
    if (t->n >= TC_KERNELS_MAX_KERNELS)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: more than %u distinct kernels: no workload has that many (is it "
                       "a kernel table?)",
                       name, line, TC_KERNELS_MAX_KERNELS);
    if (grow(t) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    *slot = slot_of(t, kname); /* the index may have moved */
    tc_kernel *k = &t->k[t->n];
    *k = (tc_kernel){.name = strdup(kname), .line = line, .klass = TC_KCLASS_OTHER};
    if (!k->name)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    **slot = ++t->n;
    size_t n = strlen(kname);
    t->cut_names |= n >= 3 && strcmp(kname + n - 3, "...") == 0;
    return TC_OK;
}

tc_err tc_kernels_add(tc_kernel_table *t, const char *name, int line, const char *kname, int64_t ns,
                      uint64_t calls, int has_calls, char *err, size_t errlen)
{
    if (strlen(kname) > TC_KERNELS_MAX_NAME)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: a kernel name longer than %u bytes: no kernel name is that long",
                       name, line, TC_KERNELS_MAX_NAME);
    size_t *slot = t->n_slots ? slot_of(t, kname) : NULL;
    if (!slot || !*slot) {
        tc_err rc = new_kernel(t, name, line, kname, &slot, err, errlen);
        if (rc != TC_OK)
            return rc;
    }
    tc_kernel *k = &t->k[*slot - 1];
    if (ns > MAX_NS - t->total_ns)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: the times add up beyond 9e18 ns: no profile is that long", name,
                       line);
    k->time_ns += ns;
    t->total_ns += ns;
    k->calls = calls > UINT64_MAX - k->calls ? UINT64_MAX : k->calls + calls;
    k->has_calls |= has_calls;
    return TC_OK;
}

/* A runtime API call (cudaLaunchKernel, cuLaunchKernel, hipMemcpy,
 * hsa_queue_create, __hipPushCallConfiguration), not a kernel. */
static int api_call(const char *s)
{
    static const char *const prefixes[] = {"cuda", "cu", "hip", "__hip", "hsa_", "nvtx", "roctx"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(s, prefixes[i], n) != 0)
            continue;
        char c = s[n];
        if (prefixes[i][n - 1] == '_' ? c >= 'a' && c <= 'z' : c >= 'A' && c <= 'Z')
            return 1;
    }
    return 0;
}

tc_err tc_kernels_finish(const char *name, tc_kernel_table *t, char *err, size_t errlen)
{
    if (t->n == 0)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: a header but no kernel rows%s", name,
                       t->format == TC_KFMT_TORCH_TABLE || t->format == TC_KFMT_TORCH_CSV
                           ? " (no device-only rows: profile with ProfilerActivity.CUDA)"
                           : "");
    size_t api = 0;
    for (size_t i = 0; i < t->n; i++)
        api += api_call(t->k[i].name) != 0;
    if (api == t->n)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: every row is a runtime API call (%.100s, ...), not a kernel: give "
                       "the kernel table (nsys cuda_gpu_kern_sum, rocprof results.stats.csv or "
                       "kernel_stats.csv), not the API table",
                       name, t->k[0].name);
    if (t->total_ns <= 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: every kernel time is 0: nothing to share out", name);
    return TC_OK;
}
