/* Strict decimal numbers. */
#include "core/tc_number.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
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

/* Decimals that keep `digits` significant digits of v (at most 6). */
static int decimals_for(double v, int digits)
{
    double a = fabs(v);
    if (!(a > 0) || !isfinite(a))
        return digits - 1;
    int d = digits - 1 - (int)floor(log10(a));
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

const char *tc_number_sig(char *buf, size_t len, double v, int digits)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "n/a");
        return buf;
    }
    double a = fabs(v);
    if (a != 0 && (a < 1e-4 || a >= 1e9)) {
        snprintf(buf, len, "%.*e", digits - 1, v);
        return buf;
    }
    if (a >= pow(10, digits)) { /* 12345.6 -> 12350 */
        double unit = pow(10, floor(log10(a)) - (digits - 1));
        v = round(v / unit) * unit;
    }
    snprintf(buf, len, "%.*f", decimals_for(v, digits), v);
    char *dot = strchr(buf, '.'); /* the shortest way: no trailing zeros */
    if (dot) {
        char *end = buf + strlen(buf);
        while (end > dot + 1 && end[-1] == '0')
            *--end = '\0';
        if (end == dot + 1)
            *dot = '\0';
    }
    return buf;
}
