/* One run's summary: the figures, the energy, the bandwidth bound and the
 * environment it ran in, as one document or as text. */
#include "report_run.h"

#include <string.h>

#include "report_energy.h"
#include "report_json.h"
#include "report_roofline.h"
#include "report_table.h"
#include "report_workload.h"
#include "core/tc_number.h"
#include "core/tc_text.h"

json_t *tc_report_run_doc(const tc_figures *f, json_t *fingerprint, const tc_roofline_result *roof)
{
    json_t *doc = tc_report_run_json(&f->run, &f->m);
    if (!doc)
        return NULL;
    if (json_object_set_new(doc, "energy", tc_report_energy_json(&f->e)) != 0 ||
        json_object_set_new(doc, "roofline",
                            tc_report_roofline_brief_json(roof, f->run.concurrency)) != 0 ||
        json_object_set(doc, "environment", fingerprint ? fingerprint : json_null()) != 0 ||
        (f->w.has_target &&
         json_object_set_new(doc, "workload", tc_report_workload_json(&f->w)) != 0)) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* A string member of o (of o's member a when b is given), or "n/a", made
 * safe for a terminal (it came from the host and the server). One of four
 * buffers in turn: a line shows at most four. */
static const char *str_at(json_t *o, const char *a, const char *b)
{
    static char bufs[4][1024];
    static int next;
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    if (!json_is_string(v))
        return "n/a";
    char *buf = bufs[next++ % 4];
    return tc_text_term(json_string_value(v), buf, sizeof bufs[0]);
}

/* One or two lines of the environment under the summary table. */
#define GIB (1024.0 * 1024 * 1024)

/* Where the server said the model sits (Ollama's /api/ps: size and
 * size_vram): a model partly in CPU memory runs at the CPU's speed for
 * that part, so the run's figures are not the card's. */
static void model_memory(FILE *out, json_t *model)
{
    json_t *size = json_object_get(model, "size_bytes");
    json_t *vram = json_object_get(model, "size_vram_bytes");
    if (!json_is_integer(size) || !json_is_integer(vram) || json_integer_value(size) <= 0)
        return;
    double total = (double)json_integer_value(size), on_card = (double)json_integer_value(vram);
    char a[32], b[32], c[32];
    if (on_card >= total) {
        fprintf(out, "              model memory: all %s GiB in device memory\n",
                tc_number_sig(a, sizeof a, total / GIB, 3));
        return;
    }
    fprintf(
        out,
        "              model memory: SPILLED: %s of %s GiB in device memory, %s GiB (%.0f%%) "
        "in CPU memory:\n              this run's speed is not the card's alone\n",
        tc_number_sig(a, sizeof a, on_card / GIB, 3), tc_number_sig(b, sizeof b, total / GIB, 3),
        tc_number_sig(c, sizeof c, (total - on_card) / GIB, 3), 100 * (total - on_card) / total);
}

static void environment(FILE *out, json_t *fp)
{
    if (!json_is_object(fp)) {
        fprintf(out, "%-14s%s\n", "environment", "not recorded");
        return;
    }
    fprintf(out, "%-14s%s, kernel %s, %s; %s\n", "environment", str_at(fp, "os", "name"),
            str_at(fp, "os", "kernel"), str_at(fp, "os", "virtualisation"),
            str_at(fp, "cpu", "model"));
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(fp, "gpus"), i, g)
    {
        fprintf(out, "              GPU %zu: %s, driver %s, %s\n", i, str_at(g, "name", NULL),
                str_at(g, "driver", NULL), str_at(g, "runtime", NULL));
    }
    json_t *srv = json_object_get(fp, "server");
    if (json_is_object(srv))
        fprintf(out, "              server %s %s; model %s %s\n", str_at(srv, "kind", NULL),
                str_at(srv, "version", NULL), str_at(srv, "model", "name"),
                str_at(srv, "model", "quantization_level"));
    model_memory(out, json_object_get(srv, "model"));
    /* run --telemetry URL: whose box the lines above describe */
    json_t *host = json_object_get(fp, "host");
    const char *role = json_string_value(json_object_get(host, "role"));
    if (role && strcmp(role, "server") == 0)
        fprintf(out, "              host: the server box, from its agent at %s\n",
                str_at(host, "source", NULL));
    else if (role)
        fprintf(out, "              host: client host, not the server (no agent /env answered)\n");
}

tc_err tc_report_run_text(FILE *out, const tc_figures *f, json_t *fingerprint,
                          const tc_roofline_result *roof, int color)
{
    tc_err rc = tc_report_table(out, &f->run, &f->m, color);
    if (rc != TC_OK)
        return rc;
    tc_report_workload_text(out, &f->w);
    tc_report_energy_table(out, &f->e);
    rc = tc_report_roofline_brief(out, roof, f->run.concurrency);
    environment(out, fingerprint);
    tc_report_method_pointer(out, "The figures of a run");
    return rc == TC_OK && ferror(out) ? TC_ERR_IO : rc;
}

tc_err tc_report_run_export(FILE *out, tc_export_format fmt, const tc_figures *f,
                            json_t *fingerprint, const tc_roofline_result *roof, char *err,
                            size_t errlen)
{
    json_t *doc = tc_report_run_doc(f, fingerprint, roof);
    if (!doc)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory building the summary");
    tc_err rc = tc_report_export_doc(out, fmt, doc, err, errlen);
    json_decref(doc);
    return rc;
}
