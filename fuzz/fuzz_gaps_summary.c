/* libFuzzer target: the reader of a saved gap table for `decide`. */
#include <stddef.h>
#include <stdint.h>

#include "assess/gaps_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_gaps_summary s;
    char err[512];
    (void)tc_gaps_summary_parse("fuzz.json", (const char *)data, size, &s, err, sizeof err);
    return 0;
}
