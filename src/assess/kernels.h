/* Kernel tables (README, "truecost kernels"): the per-kernel totals that
 * the vendors' profilers write, read from bytes, each kernel classified by
 * name (GEMM, attention, softmax, ...), the time share of each class, the
 * largest non-GEMM kernels (seed 000, section 5.3: "usually where a
 * fallback implementation sits"), attention that fell back to batched GEMM
 * plus softmax, and, for two files (incumbent, alternative), the same
 * kernels matched across platforms and a suggested tuning list priced in
 * person-days: the evidence behind T_perf.
 *
 * Readers (format detected from the content, columns by header name):
 *   - nsys stats --report cuda_gpu_kern_sum (or gpukernsum) --format csv,
 *     with or without the lines nsys prints before the header;
 *   - rocprofv3 kernel_stats.csv and kernel_trace.csv, and the
 *     out_kernel_trace.csv of `rocpd convert`;
 *   - rocprof v1/v2 results.stats.csv;
 *   - PyTorch's profiler table (key_averages().table()) and a CSV export of
 *     key_averages: the device-only rows (CPU time 0) are the kernels.
 * Everything is bounded: file bytes, rows, distinct kernels, name bytes.
 * Messages read "NAME:LINE: what is wrong (the fix)". This module uses
 * only core/. */
#ifndef TC_KERNELS_H
#define TC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

/* Bounds of one file. A trace has one row per dispatch, so a million rows
 * is an ordinary trace; a million distinct kernels is no workload. */
#define TC_KERNELS_MAX_FILE_BYTES ((size_t)1 << 30)
#define TC_KERNELS_MAX_ROWS 20000000u
#define TC_KERNELS_MAX_KERNELS 100000u
#define TC_KERNELS_MAX_NAME 65536u /* bytes of one kernel name */

/* Reads a whole kernel table file (at most TC_KERNELS_MAX_FILE_BYTES) into
 * a new NUL-terminated buffer the caller frees. TC_OK, TC_ERR_IO ("PATH:
 * why"), TC_ERR_PARSE (too large), TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_kernels_read_file(const char *path, char **text, size_t *len, char *err,
                                          size_t errlen);

/* ---- Classes and rules (kernels_class.c) ---------------------------------- */

typedef enum tc_kernel_class {
    TC_KCLASS_GEMM = 0,
    TC_KCLASS_ATTENTION,
    TC_KCLASS_NORM,
    TC_KCLASS_SOFTMAX,
    TC_KCLASS_ELEMENTWISE,
    TC_KCLASS_REDUCTION,
    TC_KCLASS_COPY,
    TC_KCLASS_COMM,
    TC_KCLASS_TRITON,
    TC_KCLASS_OTHER,
    TC_KCLASS_N
} tc_kernel_class;

/* "gemm", "attention", "normalisation", "softmax", "elementwise",
 * "reduction", "copy_fill", "communication", "triton", "other". */
const char *tc_kernels_class_name(tc_kernel_class c);

/* The class named s (the names above, any case; also "norm", "copy",
 * "comm"): 0 and *out set, or -1. */
int tc_kernels_class_parse(const char *s, tc_kernel_class *out);

/* One rule: a kernel whose lowercased name matches the glob `pattern` ('*'
 * any run, '?' one byte, the rest literal, ASCII case-blind) is of class
 * klass. */
typedef struct tc_kernel_rule {
    char *pattern;
    tc_kernel_class klass;
    int line; /* in the rules file; 0 for a built-in rule */
} tc_kernel_rule;

typedef struct tc_kernel_rules {
    tc_kernel_rule *rules;
    size_t n;
} tc_kernel_rules;

#define TC_KERNELS_MAX_RULES 1000
#define TC_KERNELS_MAX_PATTERN 256

/* The built-in rules, in the order they are tried (the first match wins);
 * *n set. Static. */
const tc_kernel_rule *tc_kernels_builtin_rules(size_t *n);

/* Reads a rules file: CSV with a header pattern,class ('#' comment lines
 * allowed), at most TC_KERNELS_MAX_RULES rows of patterns of at most
 * TC_KERNELS_MAX_PATTERN bytes. Returns TC_OK (free with
 * tc_kernels_rules_free), TC_ERR_PARSE ("NAME:LINE: ..."), TC_ERR_INVALID
 * or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_kernels_rules_parse(const char *name, const char *text, size_t len,
                                            tc_kernel_rules *out, char *err, size_t errlen);

/* Frees the rules and zeroes *r; accepts NULL. */
void tc_kernels_rules_free(tc_kernel_rules *r);

/* 1 when the glob `pattern` matches the whole of `text` (ASCII case-blind). */
int tc_kernels_glob(const char *pattern, const char *text);

/* The class of kernel `name`: the user's rules first (file order; `user`
 * may be NULL), then the built-ins, else other. *rule (when not NULL) is
 * the rule that matched (borrowed), or NULL for the default. */
tc_kernel_class tc_kernels_classify_name(const tc_kernel_rules *user, const char *name,
                                         const tc_kernel_rule **rule);

/* The name a kernel is matched by across platforms: lowercased, a leading
 * "void " dropped, every <...> template argument list and (...) argument
 * list dropped, the namespaces dropped (the part after the last "::"), a
 * ".kd" / "[clone ...]" suffix dropped. A name with nothing left keeps its
 * lowercased form. Cut to outlen - 1 bytes. */
void tc_kernels_normalise_name(const char *name, char *out, size_t outlen);

/* ---- The table of one file (kernels_read.c) ------------------------------- */

typedef enum tc_kernels_format {
    TC_KFMT_NSYS,          /* nsys cuda_gpu_kern_sum / gpukernsum CSV */
    TC_KFMT_ROCPROF_STATS, /* rocprofv3 kernel_stats.csv */
    TC_KFMT_ROCPROF_TRACE, /* rocprofv3 kernel_trace.csv */
    TC_KFMT_ROCPD_TRACE,   /* rocpd convert's out_kernel_trace.csv */
    TC_KFMT_ROCPROF_V1,    /* rocprof v1/v2 results.stats.csv */
    TC_KFMT_TORCH_TABLE,   /* PyTorch key_averages().table() text */
    TC_KFMT_TORCH_CSV      /* key_averages exported to CSV */
} tc_kernels_format;

/* "nsys_kern_sum", "rocprofv3_kernel_stats", "rocprofv3_kernel_trace",
 * "rocpd_kernel_trace", "rocprof_stats", "pytorch_table", "pytorch_csv". */
const char *tc_kernels_format_name(tc_kernels_format f);

typedef struct tc_kernel {
    char *name;                 /* as the file spells it, a ".kd" / " [clone .kd]" suffix dropped */
    int64_t time_ns;            /* all its calls (rows of the same name are summed) */
    uint64_t calls;             /* valid when has_calls */
    int has_calls;              /* 0: the file gives no count */
    int line;                   /* its first row */
    tc_kernel_class klass;      /* set by tc_kernels_classify */
    const tc_kernel_rule *rule; /* the rule that set it (borrowed), NULL: default */
} tc_kernel;

typedef struct tc_kernel_table {
    tc_kernel *k; /* in the order first seen */
    size_t n;
    tc_kernels_format format;
    int64_t total_ns; /* the sum of the kernels' times */
    size_t rows;      /* data rows read */
    size_t skipped;   /* rows that are not kernels (PyTorch's operator rows) */
    int cut_names;    /* 1: some names end in "..." (PyTorch cuts long names) */
    /* internal: room in k, and a hash index of names to k + 1 (0: free) */
    size_t cap, n_slots;
    size_t *slots;
} tc_kernel_table;

/* Detects the format of `len` bytes and reads the kernels into *out
 * (unclassified: every klass other, rule NULL). Returns TC_OK (free with
 * tc_kernels_table_free), TC_ERR_PARSE ("NAME:LINE: ...": empty, no header
 * with a name and a time column, nsys's text table, a bad, negative or
 * unit-carrying time, a bad count, an empty name, a name over
 * TC_KERNELS_MAX_NAME, a quote left open, too many rows or kernels, a
 * table of runtime API calls), TC_ERR_INVALID or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_kernels_parse(const char *name, const char *text, size_t len,
                                      tc_kernel_table *out, char *err, size_t errlen);

/* Frees the kernels and zeroes *t; accepts NULL. */
void tc_kernels_table_free(tc_kernel_table *t);

/* Sets every kernel's class and rule (tc_kernels_classify_name); `user`
 * may be NULL and must outlive t. */
void tc_kernels_classify(tc_kernel_table *t, const tc_kernel_rules *user);

/* ---- One profile: shares, suspects, fallback (kernels.c) ------------------ */

typedef struct tc_kernel_class_sum {
    int64_t time_ns;
    size_t kernels;
    double share; /* of the table's total */
} tc_kernel_class_sum;

/* Attention run as batched GEMM plus softmax: the math path of
 * scaled_dot_product_attention when no fused kernel (flash, fmha, ...)
 * runs. probable is 1 when the profile has GEMM time, softmax time (a
 * softmax kernel, or a Triton kernel named softmax) and no attention
 * kernel. */
typedef struct tc_kernel_fallback {
    int probable;
    int64_t softmax_ns;       /* the softmax kernels' time */
    int64_t gemm_ns;          /* the GEMM class's time */
    int64_t batched_gemm_ns;  /* GEMMs named batched or bmm */
    const tc_kernel *softmax; /* the largest softmax kernel, or NULL */
    const tc_kernel *batched; /* the largest batched GEMM, or NULL */
} tc_kernel_fallback;

typedef struct tc_kernel_profile {
    const tc_kernel_table *t; /* borrowed, classified */
    tc_kernel_class_sum cls[TC_KCLASS_N];
    const tc_kernel **by_time; /* every kernel, largest time first, then by name */
    size_t n;
    const tc_kernel **suspects; /* the first `top` non-GEMM kernels of by_time */
    size_t n_suspects;
    tc_kernel_fallback fallback;
} tc_kernel_profile;

/* The profile of classified table t (which must outlive it), with at most
 * `top` suspects. TC_OK (free with tc_kernels_profile_free),
 * TC_ERR_INVALID or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_kernels_profile(const tc_kernel_table *t, size_t top,
                                        tc_kernel_profile *out);

void tc_kernels_profile_free(tc_kernel_profile *p); /* accepts NULL */

/* ---- Two profiles: matching and the tuning list (kernels_compare.c) ------- */

/* Person-days per kernel on the tuning list: low, mode, high. */
typedef struct tc_kernel_effort {
    double low, mode, high;
} tc_kernel_effort;

/* The default: 2..3..5 person-days per kernel (the seed's 8-20 person-days
 * of "profiler analysis + rewriting hot kernels", spread over four). */
#define TC_KERNELS_DAYS_LOW 2.0
#define TC_KERNELS_DAYS_MODE 3.0
#define TC_KERNELS_DAYS_HIGH 5.0

/* A class enters the tuning list when the fix would save at least this
 * share of the alternative's kernel time. */
#define TC_KERNELS_TUNE_MIN_SHARE 0.01
/* At most this many kernels per entry. */
#define TC_KERNELS_TUNE_MAX_KERNELS 8

/* One kernel (by normalised name) on both platforms. */
typedef struct tc_kernel_match {
    char *name;         /* normalised */
    int64_t a_ns, b_ns; /* summed over the kernels of that name */
    uint64_t a_calls, b_calls;
    int a_has_calls, b_has_calls;
    tc_kernel_class klass; /* of the alternative's largest kernel of the name */
} tc_kernel_match;

/* One entry of the tuning list: a class of the alternative that takes
 * longer than on the incumbent. */
typedef struct tc_kernel_tune {
    tc_kernel_class klass;
    int64_t a_ns, b_ns;
    int64_t saving_ns; /* b_ns - a_ns: saved if the class took the incumbent's time */
    /* The alternative's kernels of the class, largest first, until their
     * time reaches saving_ns (no fewer can hold the excess), at most
     * TC_KERNELS_TUNE_MAX_KERNELS. */
    const tc_kernel *kernels[TC_KERNELS_TUNE_MAX_KERNELS];
    size_t n_kernels;
    tc_kernel_effort days; /* n_kernels x the effort per kernel */
    int suspect_fallback;  /* GEMM or softmax while the alternative's attention fell back */
} tc_kernel_tune;

typedef struct tc_kernel_compare {
    const tc_kernel_profile *a, *b;    /* incumbent, alternative (borrowed) */
    double share_change[TC_KCLASS_N];  /* share on b - share on a */
    tc_kernel_class grew[TC_KCLASS_N]; /* classes whose share grew, most first */
    size_t n_grew;
    tc_kernel_match *matched; /* on both, largest excess (b - a) first */
    size_t n_matched;
    const tc_kernel **b_only; /* the alternative's kernels whose normalised name the
                               * incumbent lacks, largest first */
    size_t n_b_only;
    tc_kernel_tune *tune; /* largest saving first */
    size_t n_tune;
    tc_kernel_effort per_kernel;
    tc_kernel_effort t_perf; /* the entries' days, summed */
    int64_t saving_ns;       /* the entries' savings, summed */
    /* The incumbent ran fused attention and the alternative's profile
     * shows the fallback. */
    int attention_fell_back;
} tc_kernel_compare;

/* Matches incumbent a against alternative b (which must outlive the
 * result) and builds the tuning list with `effort` per kernel (NULL: the
 * default). TC_OK (free with tc_kernels_compare_free), TC_ERR_INVALID (an
 * effort not 0 <= low <= mode <= high, finite) or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_kernels_compare(const tc_kernel_profile *a, const tc_kernel_profile *b,
                                        const tc_kernel_effort *effort, tc_kernel_compare *out);

void tc_kernels_compare_free(tc_kernel_compare *c); /* accepts NULL */

/* ---- The files of a command (kernels_files.c) ----------------------------- */

/* What `truecost kernels FILE [FILE_B] [--rules R]` reads: one or two
 * tables, classified, and the user's rules (empty without a file). */
typedef struct tc_kernel_files {
    tc_kernel_rules rules;
    tc_kernel_table t[2];
    size_t n; /* tables read: 1 or 2 */
} tc_kernel_files;

/* Reads and parses the rules at `rules` (may be NULL) and the tables at
 * `a` and `b` (b may be NULL), and classifies them. Free *out with
 * tc_kernels_files_free, also after a failure. TC_OK; TC_ERR_IO (a file
 * cannot be read) or TC_ERR_NOMEM; else a file is wrong (TC_ERR_PARSE: err
 * names it and its line). */
TC_MUST_CHECK tc_err tc_kernels_files_load(const char *a, const char *b, const char *rules,
                                           tc_kernel_files *out, char *err, size_t errlen);

void tc_kernels_files_free(tc_kernel_files *f); /* accepts NULL */

#endif
