/* The documents of `truecost kernels`: the text for people and the JSON
 * document that `lockin --kernels` is to read (docs/json.md, "The kernels
 * document"). */
#ifndef TC_REPORT_KERNELS_H
#define TC_REPORT_KERNELS_H

#include <jansson.h>
#include <stdio.h>

#include "assess/kernels.h"

/* What one `truecost kernels` call computed: one profile (single file) or
 * two with their comparison (c not NULL). files[i] names profile i;
 * rules_file is NULL without --rules. */
typedef struct tc_kernels_doc {
    const tc_kernel_profile *p[2];
    size_t n;                   /* 1 or 2 */
    const tc_kernel_compare *c; /* NULL for one file */
    const char *files[2];
    const char *rules_file;
    size_t top; /* --top */
} tc_kernels_doc;

#define TC_KERNELS_MAX_WARNINGS 8

/* The caveats of the document, as sentences, into out; returns how many. */
int tc_report_kernels_warnings(const tc_kernels_doc *d, char out[TC_KERNELS_MAX_WARNINGS][512]);

/* The note every document ends with. */
#define TC_KERNELS_NOTE                                                                            \
    "classes come from kernel names by an ordered rule table (docs/commands/kernels.md); "         \
    "check the largest kernels yourself, and compare two files only when they profile the same "   \
    "work (the same requests or steps)"

/* The tuning list's effort rule, in words. */
#define TC_KERNELS_EFFORT_RULE                                                                     \
    "a class enters when the alternative spends at least 1% of its kernel time more on it than "   \
    "the incumbent; its kernels are the alternative's largest of the class until they hold "       \
    "that excess (at most 8); person-days = kernels x the effort per kernel"

/* Prints the text of d on out. */
void tc_report_kernels_print(FILE *out, const tc_kernels_doc *d);

/* The JSON document of d (a contract: keys are only ever added; see
 * docs/json.md). Returns a new reference the caller decrefs, or NULL when
 * memory ran out. */
json_t *tc_report_kernels_json(const tc_kernels_doc *d);

#endif
