/* Strict decimal numbers. */
#include "core/tc_number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *digits(const char *q, int *n)
{
    while (*q >= '0' && *q <= '9')
        q++, (*n)++;
    return q;
}

int tc_parse_plain_number(const char *s, double *out)
{
    int n = 0;
    const char *q = digits(s, &n);
    if (*q == '.')
        q = digits(q + 1, &n);
    if (!n)
        return -1;
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        int e = 0;
        q = digits(q, &e);
        if (!e)
            return -1;
    }
    if (*q)
        return -1;
    errno = 0;
    double v = strtod(s, NULL);
    if (errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int tc_parse_duration_ms(const char *s, double *ms)
{
    static const struct {
        const char *unit;
        double ms;
    } units[] = {{"ms", 1}, {"s", 1e3}, {"m", 60e3}, {"h", 3600e3}};
    size_t len = strlen(s);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t ul = strlen(units[i].unit);
        if (len <= ul || strcmp(s + len - ul, units[i].unit) != 0)
            continue;
        char num[64];
        if (len - ul >= sizeof num)
            return -1;
        memcpy(num, s, len - ul);
        num[len - ul] = '\0';
        double v;
        if (tc_parse_plain_number(num, &v) != 0 || !isfinite(v * units[i].ms))
            return -1;
        *ms = v * units[i].ms;
        return 0;
    }
    return -1;
}
