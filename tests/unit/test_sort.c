/* The in-place sorts against qsort on the inputs that break naive
 * quicksorts: sorted, reversed, all equal, organ pipe, few values,
 * random, and lengths around the insertion-sort cut-over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_rng.h"
#include "core/tc_sort.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_i(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t value(int shape, size_t i, size_t n, tc_rng *r)
{
    switch (shape) {
    case 0:
        return (int64_t)i;
    case 1:
        return (int64_t)(n - i);
    case 2:
        return 7;
    case 3:
        return (int64_t)(i < n / 2 ? i : n - i);
    case 4:
        return (int64_t)(tc_rng_unit(r) * 3);
    default:
        return (int64_t)(tc_rng_unit(r) * 1e12) - (int64_t)5e11;
    }
}

static void sorts_as_qsort(void **state)
{
    (void)state;
    const size_t lengths[] = {0, 1, 2, 3, 15, 16, 17, 33, 1000, 100003};
    tc_rng r;
    tc_rng_seed(&r, 11);
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        size_t n = lengths[li];
        int64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
        double *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
        for (int shape = 0; shape < 6; shape++) {
            for (size_t i = 0; i < n; i++) {
                a[i] = b[i] = value(shape, i, n, &r);
                x[i] = y[i] = (double)a[i] / 3.0;
            }
            tc_sort_i64(a, n);
            qsort(b, n, sizeof *b, cmp_i);
            assert_memory_equal(a, b, n * sizeof *a);
            tc_sort_double(x, n);
            qsort(y, n, sizeof *y, cmp_d);
            assert_memory_equal(x, y, n * sizeof *x);
        }
        free(a);
        free(b);
        free(x);
        free(y);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(sorts_as_qsort)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
