/* libFuzzer target: text from outside made safe for a terminal
 * (tc_text_term). Besides not crashing it checks what the user relies on:
 * the result is valid UTF-8, holds no control character (C0, DEL, C1) and
 * no bidirectional control, and fits the buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *in = malloc(size + 1);
    if (!in)
        return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    size_t cap = size % 64 + 1; /* small buffers too: cut at a character */
    char small[65], big[4096 * 6 + 1];
    const char *outs[2] = {tc_text_term(in, small, cap), tc_text_term(in, big, sizeof big)};
    for (int k = 0; k < 2; k++) {
        const unsigned char *p = (const unsigned char *)outs[k];
        if (strlen(outs[k]) >= (k ? sizeof big : cap))
            __builtin_trap();
        while (*p) {
            unsigned cp;
            size_t n = tc_utf8_decode(p, &cp);
            if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
                (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
                __builtin_trap();
            p += n;
        }
    }
    free(in);
    return 0;
}
