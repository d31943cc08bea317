/* The operator inventory, support list and risk patterns of a gap table,
 * read from their files. */
#include "assess/gaps.h"

#include <stdlib.h>
#include <string.h>

enum { OPS, SUPPORT, RISKS };

/* Reads the file of kind `which` at path into out. */
static tc_err load_one(int which, const char *path, const char *dtype, tc_gap_files *out, char *err,
                       size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = tc_gaps_read_file(path, &text, &len, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (which == OPS)
        rc = tc_gaps_inventory_parse(path, text, len, dtype, &out->inv, err, errlen);
    else if (which == SUPPORT)
        rc = tc_gaps_support_parse(path, text, len, &out->sup, err, errlen);
    else
        rc = tc_gaps_risks_parse(path, text, len, &out->risks, err, errlen);
    free(text);
    return rc;
}

tc_err tc_gaps_files_load(const char *ops, const char *support, const char *risks,
                          const char *dtype, tc_gap_files *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    tc_err rc = load_one(OPS, ops, dtype, out, err, errlen);
    if (rc == TC_OK)
        rc = load_one(SUPPORT, support, NULL, out, err, errlen);
    if (rc == TC_OK && risks)
        rc = load_one(RISKS, risks, NULL, out, err, errlen);
    return rc;
}

void tc_gaps_files_free(tc_gap_files *f)
{
    if (!f)
        return;
    tc_gaps_inventory_free(&f->inv);
    tc_gaps_support_free(&f->sup);
    tc_gaps_risks_free(&f->risks);
}
