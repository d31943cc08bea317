#include "core/tc_grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int tc_grow(void *array, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : first;
    if (ncap < *cap || (size && ncap > SIZE_MAX / size))
        return -1;
    void *old;
    memcpy(&old, array, sizeof old); /* *(T **)array, whatever T is */
    void *grown = realloc(old, ncap * size);
    if (!grown)
        return -1;
    memcpy(array, &grown, sizeof grown);
    *cap = ncap;
    return 0;
}
