/* The files of `truecost kernels`: one or two kernel tables and the
 * user's rules, read, parsed and classified. */
#include <stdlib.h>
#include <string.h>

#include "core/tc_file.h"
#include "kernels.h"

/* A rules file is a few dozen lines. */
#define MAX_RULES_BYTES (1u << 20)

static tc_err load_table(const char *path, tc_kernel_table *t, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = tc_kernels_read_file(path, &text, &len, err, errlen);
    if (rc == TC_OK)
        rc = tc_kernels_parse(path, text, len, t, err, errlen);
    free(text);
    return rc;
}

tc_err tc_kernels_files_load(const char *a, const char *b, const char *rules, tc_kernel_files *out,
                             char *err, size_t errlen)
{
    if (!out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!a)
        return tc_fail(err, errlen, TC_ERR_INVALID, "kernels: no kernel table given");
    tc_err rc = TC_OK;
    if (rules) {
        char *text = NULL;
        size_t len = 0;
        rc = tc_read_file(rules, MAX_RULES_BYTES, "a kernel rules file", &text, &len, err, errlen);
        if (rc == TC_OK)
            rc = tc_kernels_rules_parse(rules, text, len, &out->rules, err, errlen);
        free(text);
    }
    const char *paths[2] = {a, b};
    for (size_t i = 0; rc == TC_OK && i < 2 && paths[i]; i++) {
        rc = load_table(paths[i], &out->t[i], err, errlen);
        if (rc == TC_OK) {
            tc_kernels_classify(&out->t[i], &out->rules);
            out->n++;
        }
    }
    return rc;
}

void tc_kernels_files_free(tc_kernel_files *f)
{
    if (!f)
        return;
    tc_kernels_rules_free(&f->rules);
    for (size_t i = 0; i < 2; i++)
        tc_kernels_table_free(&f->t[i]);
    f->n = 0;
}
