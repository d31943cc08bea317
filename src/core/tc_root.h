/* Reading files under a root directory. env, doctor and the sysfs
 * telemetry read a live host ("/") and a copied tree (tests, fixtures,
 * containers) the same way: the root joined with an absolute-looking
 * path, and small text files read whole with their trailing newline cut. */
#ifndef TC_ROOT_H
#define TC_ROOT_H

#include <stddef.h>
#include <stdio.h>

#include "core/tc_error.h"

/* Writes root + "/" + path into out, neither slash doubled ("/" and
 * "/proc/x" give "/proc/x", "tree/" and "proc/x" give "tree/proc/x"); a
 * NULL root leaves path as it is. TC_ERR_INVALID (out is "") when it does
 * not fit in len. */
TC_MUST_CHECK tc_err tc_root_join(char *out, size_t len, const char *root, const char *path);

/* Reads the whole file root + path (root may be NULL) into buf,
 * NUL-terminated, trailing whitespace (space, tab, newline, CR, VT, FF)
 * removed; an empty file is "". TC_ERR_IO when it cannot be opened or
 * read, errno in *sys_errno (may be NULL; 0 on success); TC_ERR_INVALID
 * when it does not fit in len - 1 bytes. buf is "" on any error. */
TC_MUST_CHECK tc_err tc_root_read(const char *root, const char *path, char *buf, size_t len,
                                  int *sys_errno);

/* fopen(root + path, mode), or NULL (errno set) when it cannot be opened. */
FILE *tc_root_open(const char *root, const char *path, const char *mode);

/* 1 when root + path exists (any type), else 0. */
int tc_root_exists(const char *root, const char *path);

#endif
