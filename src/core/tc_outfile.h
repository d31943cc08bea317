/* Writing a user's output file without losing what was there: the text
 * goes to a temporary file in the same folder, renamed over the target only
 * once it is all written, so a failed write (disk full, a size limit, an
 * error half way) leaves the old file as it was. A target that exists and
 * is not a regular file (a device such as /dev/stdout, a FIFO) is written
 * in place, since it cannot be replaced. */
#ifndef TC_OUTFILE_H
#define TC_OUTFILE_H

#include <stdio.h>

#include "core/tc_error.h"

typedef struct tc_outfile {
    FILE *f;    /* write here */
    char *path; /* the target */
    char *tmp;  /* the temporary file, or NULL when written in place */
} tc_outfile;

/* Opens the output for `path`. TC_ERR_IO ("PATH: cannot write: why") or
 * TC_ERR_NOMEM; on success write to o->f, then commit or abort. */
TC_MUST_CHECK tc_err tc_outfile_open(const char *path, tc_outfile *o, char *err, size_t errlen);

/* Flushes, closes and renames the temporary file over the target.
 * TC_ERR_IO ("PATH: write failed: why") after removing the temporary
 * file. Either way o is closed. */
TC_MUST_CHECK tc_err tc_outfile_commit(tc_outfile *o, char *err, size_t errlen);

/* Closes o and removes its temporary file; the target is untouched.
 * Accepts an o that was never opened (zeroed). */
void tc_outfile_abort(tc_outfile *o);

/* Writes text to path through a tc_outfile. */
TC_MUST_CHECK tc_err tc_outfile_write(const char *path, const char *text, char *err, size_t errlen);

/* 1 when a and b name the same existing file (device and inode). */
int tc_same_file(const char *a, const char *b);

/* The files a command reads, each with the option that named it, so that
 * no output is ever written over one: one guard for every command that
 * writes a file. */
#define TC_INPUTS_MAX 12
typedef struct tc_inputs {
    const char *what[TC_INPUTS_MAX]; /* "--db", "--profile-a", ... */
    const char *path[TC_INPUTS_MAX];
    size_t n;
} tc_inputs;

/* Adds one input; a NULL path (not given) is skipped, as are more than
 * TC_INPUTS_MAX. */
void tc_inputs_add(tc_inputs *in, const char *what, const char *path);

/* TC_OK unless `out` is (the same file as) one of the inputs: by device
 * and inode when both exist, else spelled the same. Then TC_ERR_INVALID,
 * "OPTION PATH is the same file as WHAT PATH, an input: give another
 * output file", with `option` ("-o") naming the output. */
TC_MUST_CHECK tc_err tc_output_check(const char *option, const char *out, const tc_inputs *in,
                                     char *err, size_t errlen);

#endif
