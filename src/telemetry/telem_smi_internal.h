/* Private to telem_smi*.c: the text helpers the parsers and the backends
 * share. */
#ifndef TC_TELEM_SMI_INTERNAL_H
#define TC_TELEM_SMI_INTERNAL_H

#include <stddef.h>

/* Copies n bytes of s into dst[len] without control characters. */
void tc_smi_copy_clean(char *dst, size_t len, const char *s, size_t n);
/* 1 when needle occurs in hay[0..n) ignoring ASCII case. */
int tc_smi_contains_ci(const char *hay, size_t n, const char *needle);
/* Narrows *s, *n to drop leading and trailing blanks. */
void tc_smi_trim(const char **s, size_t *n);

#endif
