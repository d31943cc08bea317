/* A stored training run and its figures (view_train.h). */
#include "views/view_train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/roofline.h"

int tc_view_is_train(const tc_run_info *run)
{
    return strcmp(run->group_kind, "train") == 0;
}

/* The card's dense FP16 peak (TFLOPS, 0 unknown) and its row's name. */
static double card_peak(const char *name, char *card, size_t len)
{
    card[0] = '\0';
    if (!name || !name[0])
        return 0;
    tc_roofline_table t;
    memset(&t, 0, sizeof t);
    char err[256];
    double peak = 0;
    if (tc_roofline_table_add_builtin(&t, err, sizeof err) == TC_OK) {
        const tc_gpu_spec *s = tc_roofline_lookup(&t, name);
        if (s && s->fp16_dense_tflops > 0) {
            peak = s->fp16_dense_tflops;
            snprintf(card, len, "%s", s->name);
        }
    }
    tc_roofline_table_free(&t);
    return peak;
}

static void count_lines(tc_view_train *v)
{
    for (size_t i = 0; i < v->n_warnings; i++) {
        if (tc_train_class_is_error(v->warnings[i].cls))
            v->error_lines += v->warnings[i].count;
        else
            v->warning_lines += v->warnings[i].count;
    }
}

tc_err tc_view_train_load(tc_store *st, const tc_run_info *run, tc_view_train *out, int *found,
                          char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->run = *run;
    tc_err e = tc_store_train_load(st, run->id, &out->info, found, &out->steps, &out->n_steps,
                                   &out->warnings, &out->n_warnings, err, errlen);
    if (e != TC_OK || !*found)
        return e;
    count_lines(out);
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int nd = 0;
    size_t ns = 0;
    e = tc_store_load_telemetry(st, run->id, &devs, &nd, &samples, &ns, err, errlen);
    if (e != TC_OK) {
        tc_view_train_free(out);
        return e;
    }
    const char *gpu = out->info.gpu;
    for (int i = 0; !gpu[0] && i < nd; i++)
        if (devs[i].info.kind == TC_TELEM_GPU)
            gpu = devs[i].info.name;
    double peak = card_peak(gpu, out->card, sizeof out->card);
    tc_training_figures_compute(&out->info, out->steps, out->n_steps, peak, &out->fig);
    tc_training_energy(&out->fig, devs, nd, samples, ns);
    out->n_devices = nd;
    free(devs);
    free(samples);
    return TC_OK;
}

void tc_view_train_free(tc_view_train *v)
{
    if (!v)
        return;
    free(v->steps);
    free(v->warnings);
    memset(v, 0, sizeof *v);
}

int tc_view_train_clean(const tc_view_train *v)
{
    return v->run.status == TC_RUN_COMPLETE && v->error_lines == 0;
}
