/* An enum's name and parse functions from its table of names, written once
 * for every enum of the records (and the layers above that name theirs the
 * same way). */
#ifndef TC_RECORD_ENUM_H
#define TC_RECORD_ENUM_H

#include <string.h>

/* The index of name in names[0..n), or -1 (also for NULL). */
static inline int tc_enum_find(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* prefix_name(type) (`unknown` out of range) and prefix_parse(name, &out)
 * (0, or -1 for a name not in the table) from table[count]. */
#define TC_ENUM_NAMES(type, prefix, table, count, unknown)                                         \
    const char *prefix##_name(type v)                                                              \
    {                                                                                              \
        return (unsigned)v < (unsigned)(count) ? table[v] : (unknown);                             \
    }                                                                                              \
    int prefix##_parse(const char *name, type *out)                                                \
    {                                                                                              \
        int i = tc_enum_find(table, (count), name);                                                \
        if (i < 0)                                                                                 \
            return -1;                                                                             \
        *out = (type)i;                                                                            \
        return 0;                                                                                  \
    }

#endif
