/* The support list indexed by the name forms the matcher compares, so that
 * matching an inventory costs a lookup per operator and stage rather than a
 * pass over every support row (a 200k-row profiler export against a
 * 2,000-row list was 400 million name comparisons). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gaps_internal.h"

/* The key of `name` in stage `stage`, as a new string; "" when the stage
 * cannot match it (an empty normalised form); NULL when memory ran out. */
static char *key_of(tc_gap_match stage, const char *name)
{
    if (stage == TC_MATCH_NORMALISED) {
        char norm[256];
        tc_gaps_normalise_name(name, norm, sizeof norm);
        return strdup(norm);
    }
    char *k = strdup(name);
    for (char *p = k; k && stage == TC_MATCH_CASE && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return k;
}

static int by_key_then_row(const void *a, const void *b)
{
    const tc_gaps_key *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

tc_err tc_gaps_index_build(const tc_gap_support *sup, tc_gaps_index *ix)
{
    memset(ix, 0, sizeof *ix);
    ix->sup = sup;
    ix->dtype = calloc(sup->n ? sup->n : 1, sizeof *ix->dtype);
    if (!ix->dtype)
        return TC_ERR_NOMEM;
    for (size_t i = 0; i < sup->n; i++)
        tc_gaps_dtype_canon(sup->rows[i].dtype, ix->dtype[i], sizeof ix->dtype[i]);
    for (int s = 0; s < TC_GAPS_INDEXED_STAGES; s++) {
        ix->keys[s] = calloc(sup->n ? sup->n : 1, sizeof *ix->keys[s]);
        if (!ix->keys[s])
            goto nomem;
        for (size_t i = 0; i < sup->n; i++) {
            char *k = key_of((tc_gap_match)(TC_MATCH_EXACT + s), sup->rows[i].op);
            if (!k)
                goto nomem;
            if (!k[0]) { /* never matches: not indexed */
                free(k);
                continue;
            }
            ix->keys[s][ix->n[s]++] = (tc_gaps_key){k, i};
        }
        qsort(ix->keys[s], ix->n[s], sizeof *ix->keys[s], by_key_then_row);
    }
    return TC_OK;
nomem:
    tc_gaps_index_free(ix);
    return TC_ERR_NOMEM;
}

void tc_gaps_index_free(tc_gaps_index *ix)
{
    if (!ix)
        return;
    for (int s = 0; s < TC_GAPS_INDEXED_STAGES; s++) {
        for (size_t i = 0; ix->keys[s] && i < ix->n[s]; i++)
            free(ix->keys[s][i].key);
        free(ix->keys[s]);
    }
    free(ix->dtype);
    memset(ix, 0, sizeof *ix);
}

size_t tc_gaps_index_find(const tc_gaps_index *ix, tc_gap_match stage, const char *name,
                          const tc_gaps_key **first)
{
    *first = NULL;
    unsigned slot = (unsigned)stage - TC_MATCH_EXACT;
    if (slot >= TC_GAPS_INDEXED_STAGES)
        return 0;
    char *k = key_of(stage, name);
    if (!k || !k[0]) {
        free(k);
        return 0;
    }
    const tc_gaps_key *keys = ix->keys[slot];
    size_t lo = 0, hi = ix->n[slot];
    while (lo < hi) { /* the first entry not below k */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(keys[mid].key, k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < ix->n[slot] && strcmp(keys[end].key, k) == 0)
        end++;
    free(k);
    *first = keys + lo;
    return end - lo;
}
