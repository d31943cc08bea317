/* The bandwidth bound in a line, for show and compare. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_roofline.h"

int tc_cli_roofline_brief(tc_store *st, const tc_run_info *run, const char *gpu_name,
                          double measured_decode_tps, const char *specs, tc_roofline_result *out)
{
    tc_roofline_table t = {0};
    char err[1024], *fp = NULL;
    int code = 0;
    memset(out, 0, sizeof *out);
    if (specs && tc_roofline_table_add_file(&t, specs, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        code = TC_EXIT_USAGE;
    } else if (tc_roofline_table_add_builtin(&t, err, sizeof err) != TC_OK) {
        tc_cli_error("the built-in GPU table: %s", err);
        code = TC_EXIT_RUNTIME;
    } else if (tc_store_get_fingerprint(st, run->id, &fp, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        code = TC_EXIT_RUNTIME;
    } else {
        tc_roofline_inputs in = {.gpu_name = gpu_name,
                                 .fingerprint_json = fp,
                                 .measured_decode_tps = measured_decode_tps};
        /* A broken fingerprint still leaves the rest computed: no error. */
        (void)tc_roofline_for_run(&t, &in, out, err, sizeof err);
    }
    free(fp);
    tc_roofline_table_free(&t);
    return code;
}

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

json_t *tc_cli_roofline_brief_json(const tc_roofline_result *r, int concurrency)
{
    if (!r->has_decode)
        return json_null();
    return json_pack(
        "{s:s,s:f,s:f,s:f,s:o,s:o,s:o,s:s,s:b}", "gpu", r->spec.name, "bandwidth_gb_s",
        r->spec.bandwidth_gb_s, "weight_bytes", r->weight_bytes, "decode_ceiling_tokens_per_s",
        r->decode_ceiling_tps, "measured_decode_tokens_per_s",
        r->has_measured ? json_real(r->measured_decode_tps) : json_null(), "percent_of_ceiling",
        r->has_measured ? json_real(r->percent_of_ceiling) : json_null(), "reading",
        reading_of(r, concurrency) ? json_string(reading_of(r, concurrency)) : json_null(),
        "weight_bytes_source", tc_roofline_bytes_source_name(r->bytes_source), "moe_suspected",
        r->moe_suspected);
}

void tc_cli_roofline_brief_print(FILE *out, const tc_roofline_result *r, int concurrency)
{
    if (r->missing & TC_ROOF_NEED_GPU)
        return; /* no GPU recorded: nothing to bound */
    if (r->missing & TC_ROOF_NEED_SPEC) {
        fprintf(out,
                "Bandwidth bound: GPU '%s' is not in the spec table (add a row: 'truecost "
                "roofline RUN --gpu-specs FILE')\n",
                r->gpu_name);
        return;
    }
    if (!r->has_decode) {
        fprintf(out, "Bandwidth bound: no model size known (see 'truecost roofline RUN "
                     "--model-bytes N')\n");
        return;
    }
    fprintf(out, "Bandwidth bound: %s, %.0f GB/s / %.3g GB per token = %.1f tokens/s per stream\n",
            r->spec.name, r->spec.bandwidth_gb_s, (r->weight_bytes + r->kv_bytes_per_token) / 1e9,
            r->decode_ceiling_tps);
    if (r->moe_suspected && r->bytes_source != TC_ROOF_BYTES_GIVEN)
        fprintf(out, "  note: a mixture-of-experts model reads only its active experts per "
                     "token; the bound above counts all weights (give --model-bytes of the "
                     "active ones to 'truecost roofline')\n");
    if (r->has_measured)
        fprintf(out, "  measured decode p50 %.1f tokens/s = %.0f%% of the bound%s: %s\n",
                r->measured_decode_tps, r->percent_of_ceiling,
                concurrency > 1 ? " (per stream)" : "", reading_of(r, concurrency));
}
