#include "cli.h"

#include "cli_read.h"
#include "core/tc_json.h"
#include "core/tc_suggest.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tc_cli_usage_hint(const char *cmd)
{
    fprintf(stderr, "Try 'truecost %s --help' for the options.\n", cmd);
    return TC_EXIT_USAGE;
}

int tc_cli_double(const char *opt, const char *text, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || v != v || isinf(v)) {
        tc_app_error("%s: '%s' is not a%s number", opt, text, isinf(v) ? " finite" : "");
        return -1;
    }
    if (v < min || v > max) {
        tc_app_error("%s: %s is out of range (%g to %g)", opt, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int tc_cli_int(const char *opt, const char *text, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno == ERANGE || end == text || *end != '\0') {
        tc_app_error("%s: '%s' is not a whole number", opt, text);
        return -1;
    }
    if (v < min || v > max) {
        tc_app_error("%s: %s is out of range (%lld to %lld)", opt, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int tc_cli_listen(const char *text, char **owned, const char **host, uint16_t *port)
{
    char err[256];
    if (tc_listen_parse(text, owned, host, port, err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("--listen %s", err);
    return -1;
}
