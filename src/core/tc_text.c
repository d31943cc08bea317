#include "tc_text.h"

#include <stdio.h>
#include <string.h>

size_t tc_utf8_decode(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    size_t n = c < 0x80                 ? 1
               : c >= 0xC2 && c <= 0xDF ? 2
               : (c & 0xF0) == 0xE0     ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (n == 0)
        return 0;
    unsigned v = n == 1 ? c : c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if ((n == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (n == 4 && v < 0x10000) ||
        v > 0x10FFFF)
        return 0;
    *cp = v;
    return n;
}

static int unsafe(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

const char *tc_text_term(const char *s, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        unsigned cp = 0;
        size_t n = tc_utf8_decode(p, &cp);
        char esc[12];
        const char *piece = (const char *)p;
        size_t plen = n;
        if (n == 0 || unsafe(cp)) {
            if (n == 0 || cp < 0x100)
                snprintf(esc, sizeof esc, "\\x%02x", n == 0 ? *p : cp);
            else
                snprintf(esc, sizeof esc, "\\u%04x", cp);
            piece = esc;
            plen = strlen(esc);
            n = n ? n : 1;
        }
        if (o + plen >= len)
            break;
        memcpy(out + o, piece, plen);
        o += plen;
        out[o] = '\0';
        p += n;
    }
    return out;
}

int tc_list_has_empty(const char *text)
{
    if (!text || !*text)
        return 1;
    for (const char *p = text; *p; p++)
        if (*p == ',' && (p == text || p[1] == ',' || p[1] == '\0'))
            return 1;
    return 0;
}
