#include "bench_jscan.h"

#include <math.h>
#include <string.h>

static int fail(tc_jscan *c, const char *why)
{
    if (!c->why) {
        c->why = why;
        c->at = c->p;
    }
    return -1;
}

static int cut(tc_jscan *c)
{
    c->p = c->end;
    return fail(c, "an unexpected end");
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static void skip_ws(tc_jscan *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

static int hex_val(char ch)
{
    if (is_digit(ch))
        return ch - '0';
    ch = (char)(ch | 0x20);
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

void tc_jscan_init(tc_jscan *c, const char *text, size_t len)
{
    *c = (tc_jscan){.p = text, .start = text, .end = text + len};
}

int tc_jscan_peek(const tc_jscan *c, char first)
{
    return c->p < c->end && *c->p == first;
}

int tc_jscan_is_number(const tc_jscan *c)
{
    return c->p < c->end && (*c->p == '-' || is_digit(*c->p));
}

int tc_jscan_is_cut(const tc_jscan *c)
{
    return c->why && c->at == c->end;
}

int tc_jscan_key_is(const tc_jstr *key, const char *name, size_t name_len)
{
    return key->n == name_len && !key->escaped && memcmp(key->s, name, name_len) == 0;
}

/* c->p is at a backslash. */
static int escape(tc_jscan *c)
{
    if (c->end - c->p < 2)
        return cut(c);
    if (c->p[1] != 'u') {
        if (!memchr("\"\\/bfnrt", c->p[1], 8))
            return fail(c, "a bad escape in a string");
        c->p += 2;
        return 0;
    }
    for (int i = 2; i < 6; i++) {
        if (c->p + i >= c->end)
            return cut(c);
        if (hex_val(c->p[i]) < 0)
            return fail(c, "a bad \\u escape in a string");
    }
    c->p += 6;
    return 0;
}

/* c->p is at a byte >= 0x80: one well-formed UTF-8 sequence (no overlong
 * form, no surrogate, nothing past U+10FFFF), or a fault. */
static int utf8(tc_jscan *c)
{
    const unsigned char *u = (const unsigned char *)c->p;
    unsigned cp, min;
    int n;
    if (u[0] >= 0xC2 && u[0] <= 0xDF)
        n = 1, cp = u[0] & 0x1Fu, min = 0x80;
    else if (u[0] >= 0xE0 && u[0] <= 0xEF)
        n = 2, cp = u[0] & 0x0Fu, min = 0x800;
    else if (u[0] >= 0xF0 && u[0] <= 0xF4)
        n = 3, cp = u[0] & 0x07u, min = 0x10000;
    else
        return fail(c, "invalid UTF-8");
    for (int i = 1; i <= n; i++) {
        if (c->p + i >= c->end)
            return cut(c);
        if ((u[i] & 0xC0) != 0x80)
            return fail(c, "invalid UTF-8");
        cp = (cp << 6) | (u[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return fail(c, "invalid UTF-8");
    c->p += n + 1;
    return 0;
}

/* 1 for the bytes a string holds as they are: printable ASCII but the
 * quote and the backslash. */
#define P4(x) x, x, x, x
#define P16(x) P4(x), P4(x), P4(x), P4(x)
static const unsigned char plain[256] = {
    P16(0), P16(0),                                /* 0x00-0x1F: control */
    1,      1,      0,     P4(1), 1, P4(1), P4(1), /* 0x20-0x2F: '"' is 0x22 */
    P16(1), P16(1),                                /* 0x30-0x4F */
    P4(1),  P4(1),  P4(1), 0,     1, 1,     1,     /* 0x50-0x5F: '\\' is 0x5C */
    P16(1), P16(1),                                /* 0x60-0x7F (0x7F is allowed) */
};

int tc_jscan_string(tc_jscan *c, tc_jstr *out)
{
    if (!tc_jscan_peek(c, '"'))
        return c->p == c->end ? cut(c) : fail(c, "a value that is not a string");
    const char *s = ++c->p;
    int escaped = 0;
    for (;;) {
        /* Plain ASCII is nearly all of it: one table look-up a byte. */
        while (c->p < c->end && plain[(unsigned char)*c->p])
            c->p++;
        if (c->p == c->end)
            return cut(c);
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '"')
            break;
        if (ch < 0x20)
            return fail(c, "a control character in a string");
        escaped |= ch == '\\';
        if ((ch == '\\' ? escape(c) : utf8(c)) < 0)
            return -1;
    }
    *out = (tc_jstr){s, (size_t)(c->p - s), escaped};
    c->p++;
    return 0;
}

/* One or more digits into mant; past 18 significant digits they only
 * move the decimal point. `frac`: these follow the point. */
static int digits(tc_jscan *c, uint64_t *mant, int *scale, int frac)
{
    if (c->p == c->end)
        return cut(c);
    if (!is_digit(*c->p))
        return fail(c, "an invalid number");
    for (; c->p < c->end && is_digit(*c->p); c->p++) {
        if (*mant < 100000000000000000ULL) {
            *mant = *mant * 10 + (uint64_t)(*c->p - '0');
            *scale -= frac;
        } else {
            *scale += !frac;
        }
    }
    return 0;
}

static int exponent(tc_jscan *c, int *scale)
{
    int sign = 1, e = 0;
    c->p++;
    if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
        sign = *c->p++ == '-' ? -1 : 1;
    if (c->p == c->end)
        return cut(c);
    if (!is_digit(*c->p))
        return fail(c, "an invalid number");
    for (; c->p < c->end && is_digit(*c->p); c->p++)
        if (e < 100000)
            e = e * 10 + (*c->p - '0');
    *scale += sign * e;
    return 0;
}

int tc_jscan_number(tc_jscan *c, tc_jnum *out)
{
    if (!tc_jscan_is_number(c))
        return c->p == c->end ? cut(c) : fail(c, "an invalid number");
    int neg = *c->p == '-', scale = 0, integral = 1;
    uint64_t mant = 0;
    c->p += neg;
    if (tc_jscan_peek(c, '0'))
        c->p++; /* a leading zero stands alone */
    else if (digits(c, &mant, &scale, 0) < 0)
        return -1;
    if (tc_jscan_peek(c, '.')) {
        c->p++;
        integral = 0;
        if (digits(c, &mant, &scale, 1) < 0)
            return -1;
    }
    if (tc_jscan_peek(c, 'e') || tc_jscan_peek(c, 'E')) {
        integral = 0;
        if (exponent(c, &scale) < 0)
            return -1;
    }
    out->d = (double)mant * (scale ? pow(10.0, scale) : 1.0);
    if (neg)
        out->d = -out->d;
    out->is_count = !neg && out->d < 9e18 && (integral ? scale == 0 : out->d == floor(out->d));
    out->i = out->is_count ? (integral ? (int64_t)mant : (int64_t)out->d) : 0;
    return 0;
}

static int literal(tc_jscan *c, const char *word, size_t n)
{
    size_t avail = (size_t)(c->end - c->p);
    if (memcmp(c->p, word, avail < n ? avail : n) != 0)
        return fail(c, "an unknown word");
    if (avail < n)
        return cut(c);
    c->p += n;
    return 0;
}

/* After a member or element: `close` (returns 1) or ',' (returns 0). */
static int next(tc_jscan *c, char close, const char *why)
{
    skip_ws(c);
    if (c->p == c->end)
        return cut(c);
    if (*c->p != close && *c->p != ',')
        return fail(c, why);
    int closed = *c->p++ == close;
    skip_ws(c);
    return closed;
}

/* Opens an object or array: 1 when it closes at once, 0 when not. */
static int open_nest(tc_jscan *c, char close)
{
    if (++c->depth > TC_JSCAN_MAX_DEPTH)
        return fail(c, "nesting deeper than 64 levels");
    c->p++;
    skip_ws(c);
    if (!tc_jscan_peek(c, close))
        return 0;
    c->p++;
    return 1;
}

static int member(tc_jscan *c, tc_jscan_member_fn fn, void *ctx)
{
    tc_jstr key;
    if (!tc_jscan_peek(c, '"'))
        return c->p == c->end ? cut(c) : fail(c, "a key that is not a string");
    if (tc_jscan_string(c, &key) < 0)
        return -1;
    skip_ws(c);
    if (!tc_jscan_peek(c, ':'))
        return c->p == c->end ? cut(c) : fail(c, "a missing ':' after a key");
    c->p++;
    skip_ws(c);
    return fn ? fn(c, &key, ctx) : tc_jscan_value(c);
}

int tc_jscan_object(tc_jscan *c, tc_jscan_member_fn fn, void *ctx)
{
    if (!tc_jscan_peek(c, '{'))
        return c->p == c->end ? cut(c) : fail(c, "a value that is not an object");
    int r = open_nest(c, '}');
    while (r == 0) {
        if (member(c, fn, ctx) < 0)
            return -1;
        r = next(c, '}', "a missing ',' or '}' in an object");
    }
    c->depth--;
    return r < 0 ? -1 : 0;
}

int tc_jscan_array(tc_jscan *c, tc_jscan_elem_fn fn, void *ctx)
{
    if (!tc_jscan_peek(c, '['))
        return c->p == c->end ? cut(c) : fail(c, "a value that is not an array");
    int r = open_nest(c, ']');
    while (r == 0) {
        if ((fn ? fn(c, ctx) : tc_jscan_value(c)) < 0)
            return -1;
        r = next(c, ']', "a missing ',' or ']' in an array");
    }
    c->depth--;
    return r < 0 ? -1 : 0;
}

int tc_jscan_value(tc_jscan *c)
{
    tc_jstr s;
    tc_jnum n;
    if (c->p == c->end)
        return cut(c);
    switch (*c->p) {
    case '{':
        return tc_jscan_object(c, NULL, NULL);
    case '[':
        return tc_jscan_array(c, NULL, NULL);
    case '"':
        return tc_jscan_string(c, &s);
    case 't':
        return literal(c, "true", 4);
    case 'f':
        return literal(c, "false", 5);
    case 'n':
        return literal(c, "null", 4);
    default:
        if (tc_jscan_is_number(c))
            return tc_jscan_number(c, &n);
        return fail(c, "an unexpected character");
    }
}

int tc_jscan_doc(tc_jscan *c, tc_jscan_member_fn fn, void *ctx, int *is_object)
{
    skip_ws(c);
    *is_object = tc_jscan_peek(c, '{');
    if ((*is_object ? tc_jscan_object(c, fn, ctx) : tc_jscan_value(c)) < 0)
        return -1;
    skip_ws(c);
    return c->p == c->end ? 0 : fail(c, "text after the JSON value");
}

/* ---- Decoding, for messages only (off the hot path) ---- */

static unsigned hex4(const char *h)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++)
        v = v * 16 + (unsigned)hex_val(h[i]);
    return v;
}

/* The code point of the escape at q, and its length in *used. */
static unsigned unescape(const char *q, const char *end, size_t *used)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    *used = 2;
    if (q[1] != 'u')
        return (unsigned char)to[(const char *)memchr(from, q[1], 8) - from];
    unsigned cp = hex4(q + 2);
    *used = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF && end - q >= 12 && q[6] == '\\' && q[7] == 'u') {
        unsigned lo = hex4(q + 8);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            *used = 12;
            return 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
    }
    return cp >= 0xD800 && cp <= 0xDFFF ? 0xFFFD : cp;
}

static size_t utf8_put(unsigned cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    size_t n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    for (size_t i = n - 1; i > 0; i--, cp >>= 6)
        o[i] = (char)(0x80 | (cp & 0x3F));
    o[0] = (char)(lead[n] | cp);
    return n;
}

size_t tc_jscan_decode(const tc_jstr *s, char *out, size_t n)
{
    size_t o = 0, used, len;
    char tmp[4];
    for (const char *q = s->s, *end = s->s + s->n; q < end; q += used) {
        unsigned char ch = (unsigned char)*q;
        if (ch == '\\') {
            unsigned cp = unescape(q, end, &used);
            len = utf8_put(cp < 0x20 || cp == 0x7F ? ' ' : cp, tmp);
        } else {
            used = len = ch < 0x80 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
            if (used > (size_t)(end - q))
                break;
            memcpy(tmp, q, len);
            if (ch == 0x7F)
                tmp[0] = ' ';
        }
        if (o + len >= n)
            break;
        memcpy(out + o, tmp, len);
        o += len;
    }
    out[o] = '\0';
    return o;
}
