#include "tc_time.h"

#include <stdio.h>
#include <time.h>

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * TC_NS_PER_S + ts.tv_nsec;
}

int64_t tc_mono_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

int64_t tc_wall_ns(void)
{
    return clock_ns(CLOCK_REALTIME);
}

char *tc_rfc3339_ns(int64_t wall_ns, char *buf, size_t len)
{
    if (len == 0)
        return buf;
    buf[0] = '\0';
    time_t secs = (time_t)(wall_ns / TC_NS_PER_S);
    long frac = (long)(wall_ns % TC_NS_PER_S);
    if (frac < 0) {
        frac += TC_NS_PER_S;
        secs -= 1;
    }
    struct tm tm;
    if (!gmtime_r(&secs, &tm) || len < 31)
        return buf;
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
    return buf;
}
