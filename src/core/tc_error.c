#include "tc_error.h"

#include <stdarg.h>
#include <stdio.h>

const char *tc_strerror(tc_err err)
{
    switch (err) {
    case TC_OK:
        return "success";
    case TC_ERR_NOMEM:
        return "out of memory";
    case TC_ERR_INVALID:
        return "invalid argument";
    case TC_ERR_PARSE:
        return "parse error";
    case TC_ERR_IO:
        return "input/output error";
    case TC_ERR_NET:
        return "network error";
    case TC_ERR_NOTFOUND:
        return "not found";
    case TC_ERR_BUSY:
        return "busy";
    }
    return "unknown error";
}

tc_err tc_fail(char *buf, size_t len, tc_err err, const char *fmt, ...)
{
    if (buf && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, len, fmt, ap);
        va_end(ap);
    }
    return err;
}
