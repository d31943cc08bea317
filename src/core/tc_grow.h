/* The one growing array of the code base: room for one more element,
 * doubling. */
#ifndef TC_GROW_H
#define TC_GROW_H

#include <stddef.h>

/* When n == *cap, reallocates the array at *(T **)array to twice *cap
 * elements of `size` bytes (`first` when *cap is 0) and sets *cap.
 * Returns 0, or -1 when memory ran out or the size would overflow (the
 * array and *cap are then as they were; the caller still owns the old
 * array). */
int tc_grow(void *array, size_t *cap, size_t n, size_t size, size_t first);

#endif
