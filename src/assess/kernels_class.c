/* Kernel classes: the ordered built-in rule table, the user's rules file
 * (--rules), the glob they are written in, and the normalised names that
 * match a kernel across platforms. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/tc_csv.h"
#include "kernels_internal.h"

static const char *const CLASS_NAMES[TC_KCLASS_N] = {
    [TC_KCLASS_GEMM] = "gemm",
    [TC_KCLASS_ATTENTION] = "attention",
    [TC_KCLASS_NORM] = "normalisation",
    [TC_KCLASS_SOFTMAX] = "softmax",
    [TC_KCLASS_ELEMENTWISE] = "elementwise",
    [TC_KCLASS_REDUCTION] = "reduction",
    [TC_KCLASS_COPY] = "copy_fill",
    [TC_KCLASS_COMM] = "communication",
    [TC_KCLASS_TRITON] = "triton",
    [TC_KCLASS_OTHER] = "other",
};

const char *tc_kernels_class_name(tc_kernel_class c)
{
    return (unsigned)c < TC_KCLASS_N ? CLASS_NAMES[c] : "?";
}

int tc_kernels_class_parse(const char *s, tc_kernel_class *out)
{
    static const struct {
        const char *name;
        tc_kernel_class c;
    } aliases[] = {{"norm", TC_KCLASS_NORM},
                   {"normalization", TC_KCLASS_NORM},
                   {"copy", TC_KCLASS_COPY},
                   {"copy/fill", TC_KCLASS_COPY},
                   {"comm", TC_KCLASS_COMM}};
    for (int c = 0; c < TC_KCLASS_N; c++)
        if (strcasecmp(s, CLASS_NAMES[c]) == 0) {
            *out = (tc_kernel_class)c;
            return 0;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(s, aliases[i].name) == 0) {
            *out = aliases[i].c;
            return 0;
        }
    return -1;
}

/* The order is the meaning: the first match wins. Collectives first (an
 * NCCL all-reduce is no reduction), attention before GEMM (fmha kernels
 * are CUTLASS), GEMM before the Triton-generated (Inductor's mm
 * templates), copies before elementwise (ATen runs direct_copy_kernel
 * inside elementwise_kernel). docs/commands/kernels.md lists the table. */
#define R(p, c)                                                                                    \
    {                                                                                              \
        (char *)(p), TC_KCLASS_##c, 0                                                              \
    }
static const tc_kernel_rule BUILTIN[] = {
    R("*nccl*", COMM),
    R("*rccl*", COMM),
    R("*msccl*", COMM),
    R("*allreduce*", COMM),
    R("*all_reduce*", COMM),
    R("*allgather*", COMM),
    R("*all_gather*", COMM),
    R("*reducescatter*", COMM),
    R("*reduce_scatter*", COMM),
    R("*alltoall*", COMM),
    R("*all_to_all*", COMM),
    R("*cross_device_reduce*", COMM),
    R("*flash*", ATTENTION),
    R("*fmha*", ATTENTION),
    R("*attention*", ATTENTION),
    R("*attn*", ATTENTION),
    R("*sdpa*", ATTENTION),
    R("*mha_fwd*", ATTENTION),
    R("*mha_bwd*", ATTENTION),
    R("aiter::mla*", ATTENTION),
    R("*mla_decode*", ATTENTION),
    R("*batchprefill*", ATTENTION),
    R("*batchdecode*", ATTENTION),
    R("*singleprefill*", ATTENTION),
    R("*singledecode*", ATTENTION),
    R("*splitkreduce*", GEMM),
    R("*gemm*", GEMM),
    R("*gemv*", GEMM),
    R("*xmma*", GEMM),
    R("nvjet*", GEMM),
    R("*cutlass*", GEMM),
    R("ampere_*", GEMM),
    R("volta_*", GEMM),
    R("turing_*", GEMM),
    R("sm80_*", GEMM),
    R("sm90_*", GEMM),
    R("sm100_*", GEMM),
    R("cijk_*", GEMM),
    R("*block_size_m*", GEMM),
    R("*matmul*", GEMM),
    R("*marlin*", GEMM),
    R("*wvsplitk*", GEMM),
    R("triton_tem_*mm*", GEMM),
    R("triton_poi_*", TRITON),
    R("triton_red_*", TRITON),
    R("triton_per_*", TRITON),
    R("triton_tem_*", TRITON),
    R("*layer_norm*", NORM),
    R("*layernorm*", NORM),
    R("*rms_norm*", NORM),
    R("*rmsnorm*", NORM),
    R("*batch_norm*", NORM),
    R("*batchnorm*", NORM),
    R("*group_norm*", NORM),
    R("*groupnorm*", NORM),
    R("*instance_norm*", NORM),
    R("*instancenorm*", NORM),
    R("*rowwisemoments*", NORM),
    R("*normalization*", NORM),
    R("*softmax*", SOFTMAX),
    R("*soft_max*", SOFTMAX),
    R("*memcpy*", COPY),
    R("*memset*", COPY),
    R("__amd_rocclr_*", COPY),
    R("*copybuffer*", COPY),
    R("*fillbuffer*", COPY),
    R("*direct_copy_kernel*", COPY),
    R("*catarraybatchedcopy*", COPY),
    R("*fillfunctor*", COPY),
    R("*copy_kernel*", COPY),
    R("*elementwise*", ELEMENTWISE),
    R("*pointwise*", ELEMENTWISE),
    R("*act_and_mul*", ELEMENTWISE),
    R("*silu*", ELEMENTWISE),
    R("*gelu*", ELEMENTWISE),
    R("*relu*", ELEMENTWISE),
    R("*rotary_embedding*", ELEMENTWISE),
    R("*reduce*", REDUCTION),
    R("*reduction*", REDUCTION),
    R("*argmax*", REDUCTION),
    R("*argmin*", REDUCTION),
};
#undef R

const tc_kernel_rule *tc_kernels_builtin_rules(size_t *n)
{
    *n = sizeof BUILTIN / sizeof BUILTIN[0];
    return BUILTIN;
}

int tc_kernels_glob(const char *p, const char *s)
{
    const char *star = NULL, *mark = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            mark = s;
        } else if (*p && (*p == '?' || tolower((unsigned char)*p) == tolower((unsigned char)*s))) {
            p++;
            s++;
        } else if (star) { /* back to the last star, one byte further */
            p = star + 1;
            s = ++mark;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

static const tc_kernel_rule *first_match(const tc_kernel_rule *rules, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (tc_kernels_glob(rules[i].pattern, name))
            return &rules[i];
    return NULL;
}

tc_kernel_class tc_kernels_classify_name(const tc_kernel_rules *user, const char *name,
                                         const tc_kernel_rule **rule)
{
    const tc_kernel_rule *r = user ? first_match(user->rules, user->n, name) : NULL;
    if (!r)
        r = first_match(BUILTIN, sizeof BUILTIN / sizeof BUILTIN[0], name);
    if (rule)
        *rule = r;
    return r ? r->klass : TC_KCLASS_OTHER;
}

void tc_kernels_classify(tc_kernel_table *t, const tc_kernel_rules *user)
{
    for (size_t i = 0; i < t->n; i++)
        t->k[i].klass = tc_kernels_classify_name(user, t->k[i].name, &t->k[i].rule);
}

/* ---- normalised names ---- */

/* Appends c to out (room for outlen - 1 bytes) at *n. */
static void put(char *out, size_t outlen, size_t *n, char c)
{
    if (*n + 1 < outlen)
        out[(*n)++] = c;
}

void tc_kernels_normalise_name(const char *name, char *out, size_t outlen)
{
    if (!outlen)
        return;
    const char *s = name;
    while (*s == ' ')
        s++;
    if (strncmp(s, "void ", 5) == 0)
        s += 5;
    size_t n = 0, last = 0; /* last: where the part after the last "::" starts */
    int angle = 0, paren = 0;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (c == '[' && !angle && !paren && strncmp(p, "[clone", 6) == 0)
            break;
        if (c == '<' && !paren)
            angle++;
        else if (c == '>' && angle && p > s && p[-1] != '-')
            angle--;
        else if (c == '(' && !angle)
            paren++;
        else if (c == ')' && paren)
            paren--;
        else if (!angle && !paren) {
            if (c == ':' && p[1] == ':') {
                p++;
                last = n;
                continue;
            }
            put(out, outlen, &n, (char)tolower((unsigned char)c));
        }
    }
    out[n] = '\0';
    memmove(out, out + last, n - last + 1);
    n -= last;
    while (n && out[n - 1] == ' ') /* "kernel<...> " left a space */
        out[--n] = '\0';
    size_t k = n >= 3 && strcmp(out + n - 3, ".kd") == 0 ? 3 : 0;
    out[n - k] = '\0';
    if (!out[0]) { /* nothing outside brackets: keep the whole name */
        for (n = 0; name[n] && n + 1 < outlen; n++)
            out[n] = (char)tolower((unsigned char)name[n]);
        out[n] = '\0';
    }
}

/* ---- the rules file ---- */

void tc_kernels_rules_free(tc_kernel_rules *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->rules[i].pattern);
    free(r->rules);
    r->rules = NULL;
    r->n = 0;
}

static tc_err rule_row(const char *name, const tc_csv_row *row, const int col[2],
                       tc_kernel_rule *out, char *err, size_t errlen)
{
    const char *pat = (size_t)col[0] < row->n ? row->fields[col[0]] : "";
    const char *cls = (size_t)col[1] < row->n ? row->fields[col[1]] : "";
    if (!pat[0])
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: empty pattern", name, row->line);
    if (strlen(pat) > TC_KERNELS_MAX_PATTERN)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: a pattern longer than %d bytes", name,
                       row->line, TC_KERNELS_MAX_PATTERN);
    if (tc_kernels_class_parse(cls, &out->klass) < 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s:%d: class '%.40s' of pattern %.100s is not one of gemm, attention, "
                       "normalisation, softmax, elementwise, reduction, copy_fill, "
                       "communication, triton, other",
                       name, row->line, cls, pat);
    out->line = row->line;
    if (!(out->pattern = strdup(pat)))
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    return TC_OK;
}

static tc_err rules_header(const char *name, const tc_csv *csv, int col[2], char *err,
                           size_t errlen)
{
    static const char *const pattern[] = {"pattern", "glob", "name", NULL};
    static const char *const klass[] = {"class", "kernel_class", NULL};
    if (csv->n == 0)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: empty: expected a header pattern,class and one row per rule", name);
    col[0] = tc_csv_column(&csv->rows[0], pattern);
    col[1] = tc_csv_column(&csv->rows[0], klass);
    if (col[0] >= 0 && col[1] >= 0)
        return TC_OK;
    char cols[512];
    tc_kernels_header_list(&csv->rows[0], cols, sizeof cols);
    return tc_fail(err, errlen, TC_ERR_PARSE,
                   "%s:%d: no '%s' column in the header (it has: %s); expected pattern,class", name,
                   csv->rows[0].line, col[0] < 0 ? "pattern" : "class", cols);
}

tc_err tc_kernels_rules_parse(const char *name, const char *text, size_t len, tc_kernel_rules *out,
                              char *err, size_t errlen)
{
    if (!name || (!text && len) || !out || !err || !errlen)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    tc_csv csv;
    tc_err rc = tc_csv_parse(name, text, len, TC_CSV_COMMENTS, &csv, err, errlen);
    if (rc != TC_OK)
        return rc;
    int col[2];
    rc = rules_header(name, &csv, col, err, errlen);
    if (rc == TC_OK && csv.n - 1 > TC_KERNELS_MAX_RULES)
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s:%d: more than %d rules", name,
                     csv.rows[TC_KERNELS_MAX_RULES + 1].line, TC_KERNELS_MAX_RULES);
    if (rc == TC_OK && !(out->rules = calloc(csv.n, sizeof *out->rules)))
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", name);
    for (size_t i = 1; rc == TC_OK && i < csv.n; i++)
        rc = rule_row(name, &csv.rows[i], col, &out->rules[out->n++], err, errlen);
    if (rc == TC_OK && out->n == 0)
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s: a header but no rules", name);
    tc_csv_free(&csv);
    if (rc != TC_OK)
        tc_kernels_rules_free(out);
    return rc;
}
