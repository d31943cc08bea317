#include "telem_sysfs.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_root.h"
#include "core/tc_time.h"

static int64_t (*test_clock)(void);

tc_err tc_telem_parse_u64(const char *text, uint64_t *out)
{
    if (!text || !*text)
        return TC_ERR_PARSE;
    uint64_t v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return TC_ERR_PARSE;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return TC_ERR_PARSE;
        v = v * 10 + d;
    }
    *out = v;
    return TC_OK;
}

tc_err tc_telem_parse_i64(const char *text, int64_t *out)
{
    if (!text)
        return TC_ERR_PARSE;
    int neg = text[0] == '-';
    uint64_t mag;
    if (tc_telem_parse_u64(text + neg, &mag) != TC_OK)
        return TC_ERR_PARSE;
    if (mag > (uint64_t)INT64_MAX + (uint64_t)neg)
        return TC_ERR_PARSE;
    /* -(INT64_MAX + 1) has no positive twin: build it from the unsigned. */
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return TC_OK;
}

tc_err tc_telem_fmt(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? TC_ERR_INVALID : TC_OK;
}

tc_err tc_telem_read_i64(const char *dir, const char *name, int64_t *out)
{
    char text[64];
    tc_err e = tc_root_read(dir, name, text, sizeof text, NULL);
    if (e == TC_OK)
        e = tc_telem_parse_i64(text, out);
    return e;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* N when name is prefix + decimal digits that fit an int, else -1. */
static int indexed_name(const char *name, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return -1;
    int64_t v;
    if (tc_telem_parse_i64(name + pl, &v) != TC_OK || name[pl] == '-' || v > 1000000)
        return -1;
    return (int)v;
}

tc_err tc_telem_scan_indexed(const char *dir, const char *prefix, int **idx, int *n)
{
    *idx = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return TC_ERR_NOTFOUND;
    tc_err rc = TC_OK;
    int *list = NULL, count = 0, cap = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        int v = indexed_name(ent->d_name, prefix);
        if (v < 0)
            continue;
        if (count == cap) {
            int ncap = cap ? cap * 2 : 8;
            int *grown = realloc(list, (size_t)ncap * sizeof *list);
            if (!grown) {
                rc = TC_ERR_NOMEM;
                goto done;
            }
            list = grown;
            cap = ncap;
        }
        list[count++] = v;
    }
    if (count > 1)
        qsort(list, (size_t)count, sizeof *list, cmp_int);
done:
    closedir(d);
    if (rc != TC_OK || count == 0) {
        free(list);
        return rc;
    }
    *idx = list;
    *n = count;
    return TC_OK;
}

int64_t tc_telem_now_ns(void)
{
    return test_clock ? test_clock() : tc_mono_ns();
}

void tc_telem_sysfs_set_clock(int64_t (*now)(void))
{
    test_clock = now;
}
