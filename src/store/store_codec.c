/* Chunk arrival times as LEB128 varint deltas; the format is described at
 * the top of store.h. */
#include "store.h"

#include <stdlib.h>

size_t tc_store_varint_put(uint64_t v, uint8_t *out)
{
    size_t i = 0;
    while (v >= 0x80) {
        out[i++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[i++] = (uint8_t)v;
    return i;
}

size_t tc_store_varint_get(const uint8_t *in, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < len && i < TC_VARINT_MAX; i++) {
        uint64_t group = in[i] & 0x7f;
        /* The tenth byte holds only bit 63: anything more would not fit. */
        if (i == TC_VARINT_MAX - 1 && in[i] > 1)
            return 0;
        x |= group << (7 * i);
        if (!(in[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

size_t tc_store_chunks_bound(size_t n)
{
    return n * TC_VARINT_MAX;
}

tc_err tc_store_chunks_encode(int64_t send_ns, const int64_t *chunk_ns, size_t n, uint8_t *out,
                              size_t *out_len, char *err, size_t errlen)
{
    size_t len = 0;
    int64_t prev = send_ns;
    for (size_t i = 0; i < n; i++) {
        if (chunk_ns[i] < prev)
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "chunk %zu arrived at %lld ns, before %lld ns", i,
                           (long long)chunk_ns[i], (long long)prev);
        /* Unsigned arithmetic: the gap between any two int64 in order fits
         * in a uint64 even when the signed difference would overflow. */
        len += tc_store_varint_put((uint64_t)chunk_ns[i] - (uint64_t)prev, out + len);
        prev = chunk_ns[i];
    }
    *out_len = len;
    return TC_OK;
}

/* Adds an unsigned gap to a signed time; -1 when the sum passes INT64_MAX. */
static int add_gap(int64_t prev, uint64_t gap, int64_t *out)
{
    uint64_t room = (uint64_t)INT64_MAX - (uint64_t)prev;
    if (gap > room)
        return -1;
    *out = (int64_t)((uint64_t)prev + gap);
    return 0;
}

tc_err tc_store_chunks_decode(int64_t send_ns, const uint8_t *blob, size_t len, size_t n,
                              int64_t **chunk_ns, char *err, size_t errlen)
{
    *chunk_ns = NULL;
    if (n == 0)
        return len == 0
                   ? TC_OK
                   : tc_fail(err, errlen, TC_ERR_PARSE, "%zu bytes of chunk times for none", len);
    /* Each value takes at least one byte: a count beyond len is corrupt
     * and must not drive a huge allocation. */
    if (n > len)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%zu chunk times in %zu bytes", n, len);
    int64_t *t = malloc(n * sizeof *t);
    if (!t)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%zu chunk times", n);
    size_t pos = 0;
    int64_t prev = send_ns;
    for (size_t i = 0; i < n; i++) {
        uint64_t gap;
        size_t used = tc_store_varint_get(blob + pos, len - pos, &gap);
        if (used == 0 || add_gap(prev, gap, &t[i]) != 0) {
            free(t);
            return tc_fail(err, errlen, TC_ERR_PARSE, "bad chunk time %zu at byte %zu", i, pos);
        }
        pos += used;
        prev = t[i];
    }
    if (pos != len) {
        free(t);
        return tc_fail(err, errlen, TC_ERR_PARSE, "%zu bytes left after %zu chunk times", len - pos,
                       n);
    }
    *chunk_ns = t;
    return TC_OK;
}
