/* Assertions the unit tests share (include after <cmocka.h>). */
#ifndef TC_TEST_ASSERT_H
#define TC_TEST_ASSERT_H

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* |a - b| <= eps, saying both values when not. */
#define assert_near(a, b, eps)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (eps)))                                                             \
            fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                                    \
    } while (0)

/* text holds `line` as a whole line. */
static inline void has_line(const char *text, const char *line)
{
    const char *p = strstr(text, line);
    size_t at = p ? (size_t)(p - text) : 0, n = strlen(line);
    if (!p || (at > 0 && text[at - 1] != '\n') || text[at + n] != '\n')
        fail_msg("no line '%s' in:\n%s", line, text);
}

/* Every fragment of the NULL-ended list ap is in the message err. */
static inline void assert_says_v(const char *err, va_list ap)
{
    for (const char *frag; (frag = va_arg(ap, const char *));)
        if (!strstr(err, frag))
            fail_msg("'%s' not in '%s'", frag, err);
}

/* The same with the fragments as arguments, then NULL. */
static inline void assert_says(const char *err, ...)
{
    va_list ap;
    va_start(ap, err);
    assert_says_v(err, ap);
    va_end(ap);
}

#endif
