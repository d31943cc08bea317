#include "core/tc_sort.h"

/* One introsort per element type: T the type, NAME the function. */
#define TC_DEFINE_SORT(T, NAME)                                                                    \
    static void NAME##_sift(T *v, size_t root, size_t n)                                           \
    {                                                                                              \
        for (size_t child; (child = 2 * root + 1) < n; root = child) {                             \
            if (child + 1 < n && v[child] < v[child + 1])                                          \
                child++;                                                                           \
            if (!(v[root] < v[child]))                                                             \
                return;                                                                            \
            T t = v[root];                                                                         \
            v[root] = v[child];                                                                    \
            v[child] = t;                                                                          \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_heap(T *v, size_t n)                                                        \
    {                                                                                              \
        for (size_t i = n / 2; i-- > 0;)                                                           \
            NAME##_sift(v, i, n);                                                                  \
        for (size_t end = n; end-- > 1;) {                                                         \
            T t = v[0];                                                                            \
            v[0] = v[end];                                                                         \
            v[end] = t;                                                                            \
            NAME##_sift(v, 0, end);                                                                \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_insertion(T *v, size_t n)                                                   \
    {                                                                                              \
        for (size_t i = 1; i < n; i++) {                                                           \
            T x = v[i];                                                                            \
            size_t j = i;                                                                          \
            for (; j > 0 && x < v[j - 1]; j--)                                                     \
                v[j] = v[j - 1];                                                                   \
            v[j] = x;                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* Hoare partition around the median of the first, middle and last;                            \
     * returns where the right part starts. */                                                     \
    static size_t NAME##_partition(T *v, size_t n)                                                 \
    {                                                                                              \
        T a = v[0], b = v[n / 2], c = v[n - 1];                                                    \
        T pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));           \
        size_t i = 0, j = n - 1;                                                                   \
        for (;;) {                                                                                 \
            while (v[i] < pivot)                                                                   \
                i++;                                                                               \
            while (pivot < v[j])                                                                   \
                j--;                                                                               \
            if (i >= j)                                                                            \
                return j + 1;                                                                      \
            T t = v[i];                                                                            \
            v[i++] = v[j];                                                                         \
            v[j--] = t;                                                                            \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_intro(T *v, size_t n, int depth)                                            \
    {                                                                                              \
        while (n > 16) {                                                                           \
            if (depth-- == 0) {                                                                    \
                NAME##_heap(v, n);                                                                 \
                return;                                                                            \
            }                                                                                      \
            size_t k = NAME##_partition(v, n);                                                     \
            /* The smaller side by recursion, the larger by the loop: the                          \
             * stack stays O(log n). */                                                            \
            if (k < n - k) {                                                                       \
                NAME##_intro(v, k, depth);                                                         \
                v += k;                                                                            \
                n -= k;                                                                            \
            } else {                                                                               \
                NAME##_intro(v + k, n - k, depth);                                                 \
                n = k;                                                                             \
            }                                                                                      \
        }                                                                                          \
        NAME##_insertion(v, n);                                                                    \
    }                                                                                              \
    void NAME(T *v, size_t n)                                                                      \
    {                                                                                              \
        int depth = 0;                                                                             \
        for (size_t m = n; m > 1; m >>= 1)                                                         \
            depth += 2;                                                                            \
        if (v && n > 1)                                                                            \
            NAME##_intro(v, n, depth);                                                             \
    }

TC_DEFINE_SORT(double, tc_sort_double)
TC_DEFINE_SORT(int64_t, tc_sort_i64)
