/* The bandwidth bound in a line, beside a run's figures (show, run,
 * compare). */
#include "report_roofline.h"

#include "core/tc_json.h"

/* The reading of a measured share, or NULL when there is none: at
 * concurrency > 1 the streams share the bandwidth, so a low share per
 * stream says nothing about the software. */
static const char *reading_of(const tc_roofline_result *r, int concurrency)
{
    if (!r->has_measured)
        return NULL;
    if (concurrency > 1)
        return "per stream at concurrency > 1, where streams share the bandwidth: no reading "
               "(measure with -c 1 for one)";
    return tc_roofline_reading_text(r->reading);
}

json_t *tc_report_roofline_brief_json(const tc_roofline_result *r, int concurrency)
{
    if (!r->has_decode)
        return json_null();
    return json_pack(
        "{s:o,s:f,s:f,s:f,s:o,s:o,s:o,s:s,s:b}", "gpu", tc_json_string(r->spec.name),
        "bandwidth_gb_s", r->spec.bandwidth_gb_s, "weight_bytes", r->weight_bytes,
        "decode_ceiling_tokens_per_s", r->decode_ceiling_tps, "measured_decode_tokens_per_s",
        tc_json_num(r->has_measured, r->measured_decode_tps), "percent_of_ceiling",
        tc_json_num(r->has_measured, r->percent_of_ceiling), "reading",
        tc_json_string(reading_of(r, concurrency)), "weight_bytes_source",
        tc_roofline_bytes_source_name(r->bytes_source), "moe_suspected", r->moe_suspected);
}

tc_err tc_report_roofline_brief(FILE *out, const tc_roofline_result *r, int concurrency)
{
    if (r->missing & TC_ROOF_NEED_GPU)
        return TC_OK; /* no GPU recorded: nothing to bound */
    if (r->missing & TC_ROOF_NEED_SPEC) {
        fprintf(out,
                "Bandwidth bound: GPU '%s' is not in the spec table (add a row: 'truecost "
                "roofline RUN --gpu-specs FILE')\n",
                r->gpu_name);
    } else if (!r->has_decode) {
        fprintf(out, "Bandwidth bound: no model size known (see 'truecost roofline RUN "
                     "--model-bytes N')\n");
    } else {
        fprintf(out,
                "Bandwidth bound: %s, %.0f GB/s / %.3g GB per token = %.1f tokens/s per stream\n",
                r->spec.name, r->spec.bandwidth_gb_s,
                (r->weight_bytes + r->kv_bytes_per_token) / 1e9, r->decode_ceiling_tps);
        if (r->moe_suspected && r->bytes_source != TC_ROOF_BYTES_GIVEN)
            fprintf(out, "  note: a mixture-of-experts model reads only its active experts per "
                         "token; the bound above counts all weights (give --model-bytes of the "
                         "active ones to 'truecost roofline')\n");
        if (r->has_measured)
            fprintf(out, "  measured decode p50 %.1f tokens/s = %.0f%% of the bound%s: %s\n",
                    r->measured_decode_tps, r->percent_of_ceiling,
                    concurrency > 1 ? " (per stream)" : "", reading_of(r, concurrency));
    }
    return ferror(out) ? TC_ERR_IO : TC_OK;
}
