/* Strict decimal numbers. */
#include "core/tc_number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

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
