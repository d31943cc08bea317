/* The roofline of stored runs: table loading, a run's inputs, the brief
 * bound of the run document. */
#include "roofline_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tc_err tc_roofline_table_load(tc_roofline_table *t, const char *specs, char *err, size_t errlen)
{
    char why[1024];
    tc_err rc;
    if (specs && (rc = tc_roofline_table_add_file(t, specs, err, errlen)) != TC_OK)
        return rc;
    if ((rc = tc_roofline_table_add_builtin(t, why, sizeof why)) != TC_OK)
        return tc_fail(err, errlen, rc, "the built-in GPU table: %s", why);
    return TC_OK;
}

const char *tc_roofline_first_gpu(const tc_run_energy *e)
{
    for (int i = 0; i < e->n; i++)
        if (e->dev[i].dev.info.kind == TC_TELEM_GPU)
            return e->dev[i].dev.info.name;
    return NULL;
}

tc_err tc_roofline_brief(const tc_roofline_table *t, const char *gpu_name, json_t *fingerprint,
                         double measured_decode_tps, tc_roofline_result *out)
{
    tc_roofline_inputs in = {.gpu_name = gpu_name,
                             .fingerprint = fingerprint,
                             .measured_decode_tps = measured_decode_tps};
    return tc_roofline_for_run(t, &in, out, NULL, 0); /* no text to parse: no parse error */
}

tc_err tc_roofline_of_figures(const tc_figures *f, json_t *fp, tc_roofline_result *out, char *err,
                              size_t errlen)
{
    tc_roofline_table t = {0};
    memset(out, 0, sizeof *out);
    out->missing = TC_ROOF_NEED_GPU;
    tc_err rc = tc_roofline_table_load(&t, NULL, err, errlen);
    if (rc == TC_OK)
        rc = tc_roofline_brief(&t, tc_roofline_first_gpu(&f->e), fp,
                               f->m.decode_tps.n ? f->m.decode_tps.p50 : 0, out);
    tc_roofline_table_free(&t);
    return rc;
}
