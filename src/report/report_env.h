/* `truecost env`'s documents: the environment fingerprint (envinfo/) as
 * labelled lines or as JSON, and the differences between two
 * (analysis/env_pair.h) as lines or JSON. */
#ifndef TC_REPORT_ENV_H
#define TC_REPORT_ENV_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "views/view_env_pair.h"
#include "core/tc_error.h"

/* Prints fingerprint fp (as tc_env_collect builds it) as a block of
 * labelled lines; n/a for what is null or missing. */
void tc_report_env_text(FILE *out, json_t *fp);

/* Writes doc (a fingerprint, or a pair's differences) as JSON indented by
 * 2 with a final newline, numbers at full precision: a saved fingerprint
 * must read back as measured, or --diff would see differences that are
 * not there. TC_OK, or TC_ERR_INVALID / TC_ERR_IO with the reason in err. */
TC_MUST_CHECK tc_err tc_report_env_json(FILE *out, const json_t *doc, char *err, size_t errlen);

/* Prints the differences of p (compared; A and B named a_name and
 * b_name): "no differences that matter" or one block per difference with
 * both values and why it matters, then a WARNING line for each side
 * that is the client host's. */
void tc_report_env_diff_text(FILE *out, const tc_env_pair *p, const char *a_name,
                             const char *b_name);

/* The warning for side ("A" or "B", named name) when its fingerprint is
 * the client host's (tc_fingerprint_client_host): into buf, without "WARNING". The
 * text form prints it after the differences; with --json it goes to
 * stderr, since the document is the list of differences. */
void tc_report_env_client_warning(char *buf, size_t len, const char *side, const char *name);

#endif
