/* The roofline's model and ceilings: parameter counts, bits per weight,
 * weight bytes, decode and prefill bounds of a run. The spec table and the
 * device lookup are in roofline_specs.c. */
#include "roofline.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

/* ---- the model ---------------------------------------------------------- */

tc_err tc_roofline_parse_params(const char *text, double *out)
{
    if (!text || !out)
        return TC_ERR_INVALID;
    while (isspace((unsigned char)*text))
        text++;
    size_t digits = strspn(text, "0123456789.");
    if (digits == 0 || !isdigit((unsigned char)text[0]) || digits > 32)
        return TC_ERR_PARSE;
    char num[40];
    memcpy(num, text, digits);
    num[digits] = '\0';
    char *end;
    double v = strtod(num, &end);
    if (*end)
        return TC_ERR_PARSE; /* two dots */
    const char *rest = text + digits;
    static const char units[] = "KMBT";
    const char *unit = *rest ? strchr(units, toupper((unsigned char)*rest)) : NULL;
    if (unit)
        rest++;
    while (isspace((unsigned char)*rest))
        rest++;
    if (*rest)
        return TC_ERR_PARSE;
    v *= unit ? pow(1e3, (double)(unit - units + 1)) : 1;
    if (!isfinite(v) || v < 1)
        return TC_ERR_PARSE;
    *out = v;
    return TC_OK;
}

/* Bits per weight of llama.cpp's file types, as Ollama reports them in
 * quantization_level. Uniform types are exact, from ggml's block layouts
 * (ggml/src/ggml-common.h: Q8_0 is 32 weights in 34 bytes = 8.5 bits,
 * Q4_0 18 bytes = 4.5, Q4_1 5.0, Q5_0 5.5, Q5_1 6.0). K-quant mixes keep
 * some tensors at a higher type, so the file average is given: llama.cpp's
 * tools/quantize/README.md, measured on Llama 2 7B (Q4_K_M 4.84, Q6_K
 * 6.56, ...). IQ types: the bpw llama-quantize lists for each. */
static const struct {
    const char *name;
    double bits;
} QUANT[] = {
    {"F32", 32},      {"FP32", 32},     {"F16", 16},      {"FP16", 16},      {"BF16", 16},
    {"Q8_0", 8.5},    {"Q6_K", 6.56},   {"Q5_1", 6.0},    {"Q5_0", 5.5},     {"Q5_K_M", 5.68},
    {"Q5_K_S", 5.52}, {"Q4_1", 5.0},    {"Q4_0", 4.5},    {"Q4_K_M", 4.84},  {"Q4_K_S", 4.58},
    {"Q3_K_L", 4.27}, {"Q3_K_M", 3.91}, {"Q3_K_S", 3.50}, {"Q2_K", 3.35},    {"IQ4_NL", 4.5},
    {"IQ4_XS", 4.25}, {"IQ3_M", 3.66},  {"IQ3_S", 3.44},  {"IQ3_XS", 3.3},   {"IQ3_XXS", 3.06},
    {"IQ2_M", 2.7},   {"IQ2_S", 2.5},   {"IQ2_XS", 2.31}, {"IQ2_XXS", 2.06}, {"IQ1_M", 1.75},
    {"IQ1_S", 1.56},  {"MXFP4", 4.25}, /* 32 4-bit values + one 8-bit scale */
};

tc_err tc_roofline_quant_bits(const char *level, double *bits)
{
    if (!level || !bits)
        return TC_ERR_INVALID;
    for (size_t i = 0; i < sizeof QUANT / sizeof QUANT[0]; i++)
        if (strcasecmp(level, QUANT[i].name) == 0) {
            *bits = QUANT[i].bits;
            return TC_OK;
        }
    return TC_ERR_NOTFOUND;
}

const char *tc_roofline_bytes_source_name(tc_roofline_bytes_source s)
{
    switch (s) {
    case TC_ROOF_BYTES_GIVEN:
        return "given";
    case TC_ROOF_BYTES_ESTIMATE:
        return "parameters x quantisation";
    case TC_ROOF_BYTES_LOADED:
        return "loaded size";
    case TC_ROOF_BYTES_NONE:
        break;
    }
    return "none";
}

const char *tc_roofline_reading_text(tc_roofline_reading r)
{
    switch (r) {
    case TC_ROOF_READING_TUNED:
        return "in the range well-tuned engines reach (60-85%)";
    case TC_ROOF_READING_LOW:
        return "below what well-tuned engines reach: look at the software (kernels, offload, "
               "fallback) before the card";
    case TC_ROOF_READING_NEAR:
        return "near the bound, above what well-tuned engines usually reach (60-85%): check "
               "that the model bytes are right";
    case TC_ROOF_READING_ABOVE:
        return "above the bound: the model bytes or the GPU match are wrong (or speculative "
               "decoding)";
    case TC_ROOF_READING_NONE:
        break;
    }
    return "";
}

double tc_roofline_decode_tps(double bandwidth_gb_s, double bytes_per_token)
{
    return bandwidth_gb_s > 0 && bytes_per_token > 0 ? bandwidth_gb_s * 1e9 / bytes_per_token : 0;
}

double tc_roofline_prefill_tps(double fp16_tflops, double params)
{
    return fp16_tflops > 0 && params > 0 ? fp16_tflops * 1e12 / (2 * params) : 0;
}

/* ---- one run ------------------------------------------------------------ */

/* A mixture-of-experts model reads only its active experts per token, so
 * the bound from all the weights is too low; known by name or family. */
static int looks_moe(const char *text)
{
    static const char *const marks[] = {"moe", "mixtral", "gpt-oss", "gptoss", "deepseek-v",
                                        "a3b", "a22b",    "a35b",    "a17b"};
    char low[256];
    size_t i = 0;
    for (; text && text[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)text[i]);
    low[i] = '\0';
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
        if (strstr(low, marks[k]))
            return 1;
    return 0;
}

/* What the fingerprint says of the model and the GPU. */
static void from_fingerprint(json_t *fp, const tc_roofline_inputs *in, tc_roofline_result *r)
{
    json_t *model = json_object_get(json_object_get(fp, "server"), "model");
    r->moe_suspected = looks_moe(json_string_value(json_object_get(model, "name"))) ||
                       looks_moe(json_string_value(json_object_get(model, "family")));
    const char *size = json_string_value(json_object_get(model, "parameter_size"));
    const char *quant = json_string_value(json_object_get(model, "quantization_level"));
    json_t *loaded = json_object_get(model, "size_bytes");
    const char *gpu =
        json_string_value(json_object_get(json_array_get(json_object_get(fp, "gpus"), 0), "name"));
    if (in->params <= 0 && size) {
        if (tc_roofline_parse_params(size, &r->params) == TC_OK)
            r->params_source = "server parameter_size";
        else
            r->missing |= TC_ROOF_BAD_PARAMS;
    }
    if (quant) {
        snprintf(r->quant, sizeof r->quant, "%s", quant);
        if (tc_roofline_quant_bits(quant, &r->bits_per_weight) != TC_OK)
            r->missing |= TC_ROOF_BAD_QUANT;
    }
    if (json_is_integer(loaded) && json_integer_value(loaded) > 0)
        r->loaded_bytes = (double)json_integer_value(loaded);
    if (!r->gpu_name[0] && gpu)
        snprintf(r->gpu_name, sizeof r->gpu_name, "%s", gpu);
}

/* The given bytes, else the estimate, else the loaded size: that one holds
 * the whole KV cache and the compute buffers besides the weights, so it
 * overstates the bytes read per token and the ceiling comes out low. */
static void weight_bytes(const tc_roofline_inputs *in, tc_roofline_result *r)
{
    if (in->model_bytes > 0) {
        r->weight_bytes = in->model_bytes;
        r->bytes_source = TC_ROOF_BYTES_GIVEN;
    } else if (r->params > 0 && r->bits_per_weight > 0) {
        r->weight_bytes = r->params * r->bits_per_weight / 8;
        r->bytes_source = TC_ROOF_BYTES_ESTIMATE;
    } else if (r->loaded_bytes > 0) {
        r->weight_bytes = r->loaded_bytes;
        r->bytes_source = TC_ROOF_BYTES_LOADED;
    } else {
        r->missing |= TC_ROOF_NEED_BYTES;
    }
}

static void ceilings(const tc_roofline_inputs *in, tc_roofline_result *r)
{
    if (!r->has_spec)
        return;
    double per_token = r->weight_bytes + r->kv_bytes_per_token;
    r->has_decode = r->weight_bytes > 0;
    r->decode_ceiling_tps = tc_roofline_decode_tps(r->spec.bandwidth_gb_s, per_token);
    if (r->spec.fp16_dense_tflops <= 0)
        r->missing |= TC_ROOF_NEED_FLOPS;
    if (r->params <= 0)
        r->missing |= TC_ROOF_NEED_PARAMS;
    r->has_prefill = r->spec.fp16_dense_tflops > 0 && r->params > 0;
    r->prefill_ceiling_tps = tc_roofline_prefill_tps(r->spec.fp16_dense_tflops, r->params);
    if (!r->has_decode || !(in->measured_decode_tps > 0))
        return;
    r->has_measured = 1;
    r->measured_decode_tps = in->measured_decode_tps;
    r->percent_of_ceiling = 100 * in->measured_decode_tps / r->decode_ceiling_tps;
    r->reading = r->percent_of_ceiling > 100  ? TC_ROOF_READING_ABOVE
                 : r->percent_of_ceiling > 85 ? TC_ROOF_READING_NEAR
                 : r->percent_of_ceiling < 60 ? TC_ROOF_READING_LOW
                                              : TC_ROOF_READING_TUNED;
}

tc_err tc_roofline_for_run(const tc_roofline_table *t, const tc_roofline_inputs *in,
                           tc_roofline_result *out, char *err, size_t errlen)
{
    if (!t || !in || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    tc_err rc = TC_OK;
    if (in->gpu_name && *in->gpu_name)
        snprintf(out->gpu_name, sizeof out->gpu_name, "%s", in->gpu_name);
    if (in->params > 0) {
        out->params = in->params;
        out->params_source = "given";
    }
    if (in->fingerprint_json) {
        json_error_t jerr;
        json_t *fp = json_loads(in->fingerprint_json, 0, &jerr);
        if (json_is_object(fp))
            from_fingerprint(fp, in, out);
        else
            rc = tc_fail(err, errlen, TC_ERR_PARSE,
                         "the stored fingerprint is not a JSON object: %s",
                         fp ? "another JSON value" : jerr.text);
        json_decref(fp);
    } else if (json_is_object(in->fingerprint)) {
        from_fingerprint(in->fingerprint, in, out);
    }
    out->kv_bytes_per_token = in->kv_bytes_per_token > 0 ? in->kv_bytes_per_token : 0;
    weight_bytes(in, out);
    const tc_gpu_spec *spec = tc_roofline_lookup(t, out->gpu_name);
    if (spec) {
        out->has_spec = 1;
        out->spec = *spec;
    } else {
        out->missing |= out->gpu_name[0] ? TC_ROOF_NEED_SPEC : TC_ROOF_NEED_GPU;
    }
    ceilings(in, out);
    return rc;
}
