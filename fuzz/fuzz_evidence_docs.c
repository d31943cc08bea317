/* libFuzzer target: the readers of a saved kernels document and a saved fit
 * document as decide, lockin and report take them (--kernels, --fit). The
 * first byte picks the reader and whether an assessment's effort per
 * kernel is set. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "assess/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t pick = data[0];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    tc_evidence ev;
    tc_lockin_overrides ov;
    tc_lockin a;
    memset(&ev, 0, sizeof ev);
    memset(&ov, 0, sizeof ov);
    memset(&a, 0, sizeof a);
    if (pick & 2)
        a.kernel_effort = (tc_lockin_range){.valid = 1, .low = 1, .mode = 2, .high = 4};
    char err[1024];
    if (pick & 1)
        (void)tc_evidence_parse_fit("fuzz.json", text, len, &ev, err, sizeof err);
    else
        (void)tc_evidence_parse_kernels("fuzz.json", text, len, &a, &ev, &ov, err, sizeof err);
    return 0;
}
