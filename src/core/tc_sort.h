/* In-place sorts of numbers: no scratch buffer (glibc's qsort takes one as
 * large as the array), so sorting the values of a huge run costs no
 * second copy of them. Introsort: quicksort with a median of three,
 * insertion sort for short ranges, heapsort where the quicksort degrades;
 * O(n log n) at worst. Doubles must not be NaN. */
#ifndef TC_SORT_H
#define TC_SORT_H

#include <stddef.h>
#include <stdint.h>

void tc_sort_double(double *v, size_t n);
void tc_sort_i64(int64_t *v, size_t n);

#endif
