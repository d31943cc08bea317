/* Text from outside (a server's version or model name, a label) on its way
 * to a terminal. JSON escapes it already; plain text would pass an ESC
 * sequence (clear the screen, retitle the window), a newline that forges a
 * line, or a right-to-left override straight to the user's terminal. */
#ifndef TC_TEXT_H
#define TC_TEXT_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF) with its code point in *cp, or 0
 * when it is not one. */
size_t tc_utf8_decode(const unsigned char *s, unsigned *cp);

/* Copies s (NULL: "") into out (len > 0 bytes), with every control
 * character (C0, DEL, C1), bidirectional control (U+200E/F, U+202A..E,
 * U+2066..9) and byte that is not UTF-8 written as a visible escape
 * (\x1b, \u202e); cut at a character boundary when out is too small.
 * Returns out. */
const char *tc_text_term(const char *s, char *out, size_t len);

/* 1 when a comma-separated list has an empty item ("", "1,,2", "50,",
 * ",5"): what strtok would skip silently is a typo to report. */
int tc_list_has_empty(const char *text);

#endif
