/* The bandwidth ceiling (roofline) of a run on its GPU (seeds 003, section
 * 6): generating one token of one stream reads every weight once, so a
 * single stream cannot decode faster than the card's memory bandwidth over
 * the bytes it reads per token; prefill is bound by compute instead:
 *
 *   decode ceiling  tokens/s = bandwidth bytes/s
 *                              / (weight bytes + KV-cache bytes read per token)
 *   prefill ceiling tokens/s = dense FP16 FLOP/s / (2 x parameters)
 *
 * The measured single-stream decode speed as a percentage of the decode
 * ceiling says where to look: well-tuned engines reach 60-85%, so a low
 * figure points at the software, not the card.
 *
 * GPU figures come from a spec table: CSV rows a user gives (--gpu-specs)
 * and the table built into the binary (data/gpu-specs.csv, whose comments
 * document the columns and the matching rule). Model bytes come from the
 * run's stored fingerprint (Ollama's parameter_size x the quantisation's
 * bits per weight, else the loaded size) or from the caller. */
#ifndef TC_ROOFLINE_H
#define TC_ROOFLINE_H

#include <stddef.h>

#include <jansson.h>

#include "core/tc_error.h"

#define TC_ROOF_COLUMNS                                                                            \
    "name,vendor,memory_gb,bandwidth_gb_s,fp16_dense_tflops,board_power_w,launch_price_usd,match," \
    "source"

/* One row of the table. A number <= 0 is unknown (an empty cell). */
typedef struct tc_gpu_spec {
    char name[64];
    char vendor[16];
    double memory_gb;
    double bandwidth_gb_s; /* always > 0 */
    double fp16_dense_tflops;
    double board_power_w;
    double launch_price_usd;
    char match[256];  /* the patterns as written, "A|B|!C" */
    char source[256]; /* where the figures come from; "" = none given */
    int builtin;      /* 1: the built-in table; 0: a user's file */
    int line;         /* line of the row in its file */
    /* The optional 10th column: the memory the driver reports as the
     * card's total (nvidia-smi memory.total, rocm-smi VRAM Total Memory),
     * in MiB; 0 = unknown. truecost fit reads it. */
    double usable_memory_mib;
} tc_gpu_spec;

/* Rows in the order they were added. Zero-initialise, then add. */
typedef struct tc_roofline_table {
    tc_gpu_spec *rows;
    int n, cap;
} tc_roofline_table;

/* Parses CSV `text` (len bytes, from `file`, used in messages) and appends
 * its rows, user rows unless `builtin`. Strict: '#' comment lines and blank
 * lines are skipped; the first other line must be the header
 * TC_ROOF_COLUMNS, optionally followed by ",usable_memory_mib"; every row
 * has the header's fields (RFC 4180 quoting on one line), a name, a
 * bandwidth and a match; numbers are plain and > 0.
 * Returns TC_OK, TC_ERR_PARSE with "FILE:LINE: column COL: why" in err (no
 * row of this text is kept), TC_ERR_NOMEM or TC_ERR_INVALID (NULL). */
TC_MUST_CHECK tc_err tc_roofline_table_add_csv(tc_roofline_table *t, const char *file,
                                               const char *text, size_t len, int builtin, char *err,
                                               size_t errlen);

/* Adds the built-in table. TC_OK or TC_ERR_NOMEM (it always parses: the
 * unit tests check). */
TC_MUST_CHECK tc_err tc_roofline_table_add_builtin(tc_roofline_table *t, char *err, size_t errlen);

/* Reads `path` and adds its rows as user rows: TC_ERR_IO when it cannot be
 * read, else as tc_roofline_table_add_csv. */
TC_MUST_CHECK tc_err tc_roofline_table_add_file(tc_roofline_table *t, const char *path, char *err,
                                                size_t errlen);

/* Frees the rows and empties *t; accepts NULL. */
void tc_roofline_table_free(tc_roofline_table *t);

/* The row for a device name ("NVIDIA GeForce RTX 4090", or a row's own
 * name), or NULL. User rows are tried first and win when one matches. Among
 * the rows of one kind, a row whose name equals `device` (case aside) wins,
 * then the longest matching pattern, then the earlier row. A pattern
 * matches as a whole phrase, case-insensitively; a row with a matching
 * "!pattern" is out. The pointer lives as long as the table. */
const tc_gpu_spec *tc_roofline_lookup(const tc_roofline_table *t, const char *device);

/* For a name the table does not know: the shortest row name that holds
 * `device` as whole words ("7900 XTX" -> "RX 7900 XTX"), or NULL. */
const char *tc_roofline_closest(const tc_roofline_table *t, const char *device);

/* Parses a parameter count as Ollama writes it ("7.6B", "8B", "135M",
 * "1.5T", "500K") or a plain count ("8030261248") into *out. TC_OK or
 * TC_ERR_PARSE. */
TC_MUST_CHECK tc_err tc_roofline_parse_params(const char *text, double *out);

/* Bits per weight of a quantisation level as Ollama and llama.cpp name it
 * ("Q4_K_M", "F16", case aside) into *bits: the whole-file average of
 * llama.cpp's mixes (see roofline.c). TC_OK or TC_ERR_NOTFOUND. */
TC_MUST_CHECK tc_err tc_roofline_quant_bits(const char *level, double *bits);

/* What the caller knows. Numbers <= 0 and NULL strings are unknown. */
typedef struct tc_roofline_inputs {
    const char *gpu_name;         /* device name; NULL: the fingerprint's first GPU */
    const char *fingerprint_json; /* the run's stored fingerprint, or NULL */
    json_t *fingerprint;          /* the same already parsed (used when the text is NULL) */
    double model_bytes;           /* weight bytes, over any estimate */
    double params;                /* parameter count, over the server's */
    double kv_bytes_per_token;    /* KV-cache bytes read per generated token */
    double measured_decode_tps;   /* single-stream decode tokens/s */
} tc_roofline_inputs;

/* Where the weight bytes came from. */
typedef enum tc_roofline_bytes_source {
    TC_ROOF_BYTES_NONE = 0,
    TC_ROOF_BYTES_GIVEN,    /* inputs.model_bytes */
    TC_ROOF_BYTES_ESTIMATE, /* parameters x bits per weight / 8 */
    TC_ROOF_BYTES_LOADED    /* Ollama /api/ps size: weights + KV cache + buffers */
} tc_roofline_bytes_source;

/* "none", "given", "parameters x quantisation", "loaded size". */
const char *tc_roofline_bytes_source_name(tc_roofline_bytes_source s);

/* What was missing, as bits of tc_roofline_result.missing. */
enum {
    TC_ROOF_NEED_GPU = 1u << 0,    /* no GPU name at all */
    TC_ROOF_NEED_SPEC = 1u << 1,   /* a name, but no row matches it */
    TC_ROOF_NEED_BYTES = 1u << 2,  /* no weight bytes: no decode ceiling */
    TC_ROOF_NEED_PARAMS = 1u << 3, /* no parameter count: no prefill ceiling */
    TC_ROOF_NEED_FLOPS = 1u << 4,  /* the row has no FP16 figure: no prefill ceiling */
    TC_ROOF_BAD_PARAMS = 1u << 5,  /* the server's parameter_size did not parse */
    TC_ROOF_BAD_QUANT = 1u << 6    /* the server's quantisation is not in the table */
};

typedef enum tc_roofline_reading {
    TC_ROOF_READING_NONE = 0, /* no measurement or no ceiling */
    TC_ROOF_READING_LOW,      /* < 60% */
    TC_ROOF_READING_TUNED,    /* 60-85% */
    TC_ROOF_READING_NEAR,     /* 85-100%: better than engines usually reach */
    TC_ROOF_READING_ABOVE     /* > 100% */
} tc_roofline_reading;

/* The reading in words, e.g. "below what well-tuned engines reach: ...";
 * "" for TC_ROOF_READING_NONE. Static. */
const char *tc_roofline_reading_text(tc_roofline_reading r);

typedef struct tc_roofline_result {
    char gpu_name[128]; /* the name looked up; "" = none */
    int has_spec;
    tc_gpu_spec spec; /* a copy of the matched row */

    double params;             /* 0 = unknown */
    const char *params_source; /* static: "given", "server parameter_size", NULL */
    char quant[32];            /* the server's quantisation_level; "" = unknown */
    double bits_per_weight;    /* 0 = unknown */
    double weight_bytes;       /* 0 = unknown */
    tc_roofline_bytes_source bytes_source;
    double loaded_bytes;       /* the server's loaded size; 0 = unknown */
    double kv_bytes_per_token; /* 0 = not counted */

    int has_decode;
    double decode_ceiling_tps;
    int has_prefill;
    double prefill_ceiling_tps;

    int has_measured; /* a measurement and a decode ceiling */
    double measured_decode_tps;
    double percent_of_ceiling;
    tc_roofline_reading reading;

    unsigned missing; /* TC_ROOF_NEED_* and TC_ROOF_BAD_* bits */
    /* The model's name or family says mixture of experts (moe, mixtral,
     * gpt-oss, deepseek-v, a3b...): only the active experts are read per
     * token, so --model-bytes of those gives the real bound. */
    int moe_suspected;
} tc_roofline_result;

/* Fills *out with the ceilings of a run on its GPU from table `t` and the
 * inputs (see above); what cannot be computed is left out and said in
 * out->missing, which is not an error. Returns TC_OK, TC_ERR_INVALID (NULL
 * argument), or TC_ERR_PARSE when the fingerprint is not a JSON object
 * (detail in err; *out is still filled from the other inputs). */
TC_MUST_CHECK tc_err tc_roofline_for_run(const tc_roofline_table *t, const tc_roofline_inputs *in,
                                         tc_roofline_result *out, char *err, size_t errlen);

/* The arithmetic alone: single-stream decode tokens/s for a bandwidth in
 * GB/s and the bytes read per token, and prefill tokens/s for a dense peak
 * in TFLOPS and a parameter count. 0 when an input is not positive. */
double tc_roofline_decode_tps(double bandwidth_gb_s, double bytes_per_token);
double tc_roofline_prefill_tps(double fp16_tflops, double params);

#endif
