/* A reader of the Prometheus text exposition format (version 0.0.4, what
 * exporters serve on /metrics): bytes in, one sample per line out. It is
 * a reader of outside input: every malformed line is an error naming the
 * line, never a crash or a guess (fuzz/fuzz_expo.c). Comments (# HELP,
 * # TYPE, # EOF) are skipped: the mapping of remote telemetry goes by
 * metric names, not by declared types. */
#ifndef TC_TELEM_EXPO_H
#define TC_TELEM_EXPO_H

#include <stddef.h>

#include "core/tc_error.h"

/* The largest exposition read, and the most labels on one sample. */
#define TC_EXPO_MAX_BYTES (16u << 20)
#define TC_EXPO_MAX_LABELS 64

typedef struct tc_expo_label {
    const char *name, *value; /* value unescaped (\\, \" and \n) */
} tc_expo_label;

typedef struct tc_expo_sample {
    const char *name;
    const tc_expo_label *labels;
    int n_labels;
    double value; /* NaN and +-Inf as the text says */
} tc_expo_sample;

typedef struct tc_expo {
    tc_expo_sample *samples;
    size_t n;
    tc_expo_label *labels; /* every sample's labels, in order */
    size_t n_labels;
    char *arena; /* the names and values, NUL-terminated */
} tc_expo;

/* Parses len bytes of text into *out (free with tc_expo_free, also after
 * an error). TC_ERR_PARSE with "line N: why" in err for a malformed line;
 * TC_ERR_INVALID when the text is over TC_EXPO_MAX_BYTES; TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_expo_parse(const char *text, size_t len, tc_expo *out, char *err,
                                   size_t errlen);

/* The value of label `name` of sample s, or NULL when it has none. */
const char *tc_expo_label_of(const tc_expo_sample *s, const char *name);

void tc_expo_free(tc_expo *e); /* accepts NULL and a zeroed tc_expo */

#endif
