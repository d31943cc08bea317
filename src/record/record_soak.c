/* The names of a soak's chunk storage. */
#include "record_soak.h"

#include <string.h>

static const char *const chunk_names[] = {"sample", "all", "none"};

const char *tc_chunks_name(tc_soak_chunks c)
{
    return (unsigned)c < 3 ? chunk_names[c] : "sample";
}

int tc_chunks_parse(const char *name, tc_soak_chunks *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, chunk_names[i]) == 0) {
            *out = (tc_soak_chunks)i;
            return 0;
        }
    return -1;
}
