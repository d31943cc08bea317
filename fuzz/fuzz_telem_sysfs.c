/* libFuzzer target: the sysfs value parsers (strict integers and the
 * pp_dpm_* clock tables), fed whatever a driver or a broken file could
 * hold. The first byte picks the parser. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telem_sysfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    int64_t i;
    uint64_t u;
    switch (data[0] % 3) {
    case 0:
        if (tc_telem_parse_i64(text, &i) == TC_OK && strlen(text) == 0)
            __builtin_trap(); /* an empty file is never a number */
        break;
    case 1:
        if (tc_telem_parse_u64(text, &u) == TC_OK && text[0] == '-')
            __builtin_trap();
        break;
    default: {
        int mhz = tc_telem_parse_dpm(text);
        if (mhz < -1 || mhz > 1000000)
            __builtin_trap();
    }
    }
    free(text);
    return 0;
}
