/* libFuzzer target: JSON string escaping must round-trip any valid UTF-8
 * through a strict parser (jansson), and never write out of bounds. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/tc_buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_buf b = {0};
    tc_buf_json_str(&b, (const char *)data, size);
    json_t *as_string = json_stringn((const char *)data, size); /* NULL if not UTF-8 */
    if (as_string && tc_buf_status(&b) == TC_OK) {
        json_t *back = json_loadb(b.data, b.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        if (!back || json_string_length(back) != size ||
            memcmp(json_string_value(back), data, size) != 0)
            __builtin_trap();
        json_decref(back);
    }
    json_decref(as_string);
    tc_buf_free(&b);
    return 0;
}
