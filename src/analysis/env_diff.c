/* tc_fingerprint_diff: the differences between two fingerprints that make their
 * runs unfair to compare, each with the reason it matters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "env_diff.h"

typedef enum compare { EXACT, PRESENCE, NEAR } compare;

typedef struct rule {
    const char *field; /* dotted path; "gpus.*." rules apply to every GPU both have */
    compare how;
    const char *why;
} rule;

static const rule rules[] = {
    {"host.role", EXACT, NULL}, /* client host or not; written by host_role() */
    {"os.name", EXACT, "different operating system release"},
    {"os.kernel", EXACT, "different kernel: drivers, scheduling and memory handling differ"},
    {"os.virtualisation", EXACT,
     "different virtualisation: a VM, container or WSL2 adds overhead and may hide hardware"},
    {"cpu.model", EXACT, "different CPU model"},
    {"cpu.sockets", EXACT, "different number of CPU sockets"},
    {"cpu.cores", EXACT, "different number of CPU cores"},
    {"cpu.threads", EXACT, "different number of CPU threads"},
    {"memory_bytes", NEAR, "different amount of memory (more than 1% apart)"},
    {"disk.rotational", EXACT,
     "the model store is on a spinning disk in one and not the other: load times differ"},
    {"gpus", PRESENCE, NULL}, /* the count; written by gpu_count() */
    {"gpus.*.vendor", EXACT, "different GPU vendor"},
    {"gpus.*.name", EXACT, "different GPU model"},
    {"gpus.*.memory_bytes", EXACT, "different GPU memory size"},
    {"gpus.*.driver", EXACT, "different GPU driver version"},
    {"gpus.*.runtime", EXACT, "different CUDA or ROCm version"},
    {"gpus.*.power_limit_w", EXACT, "different GPU power limit: a capped GPU runs slower"},
    {"server", PRESENCE, "an inference server is recorded for only one of them"},
    {"server.kind", EXACT, "different inference server"},
    {"server.version", EXACT, "different inference server version"},
    {"server.simulated", EXACT, "one of them is a SIMULATED server"},
    {"server.model", PRESENCE, "a model is recorded for only one of them"},
    {"server.model.name", EXACT, "different model"},
    {"server.model.parameter_size", EXACT, "different model size (parameter count)"},
    {"server.model.quantization_level", EXACT,
     "different quantisation: speed, memory and output quality all change"},
    {"server.model.context_length", EXACT, "different context length: memory use and speed differ"},
    {"truecost.version", EXACT, "different truecost version: measurement code may differ"},
    {"truecost.build.asan", EXACT,
     "one truecost build has AddressSanitizer on, which slows the client down"},
};

/* The value at a dotted path, borrowed; NULL when a step is missing. */
static json_t *at(json_t *doc, const char *path)
{
    char key[64];
    while (doc && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        doc = json_is_array(doc) ? json_array_get(doc, strtoul(key, NULL, 10))
                                 : json_object_get(doc, key);
        path += n + (path[n] == '.');
    }
    return doc;
}

static int is_none(json_t *v)
{
    return !v || json_is_null(v);
}

/* The object that holds path's last step ("server.model" for
 * "server.model.name"), borrowed; NULL or null when absent. */
static json_t *parent(json_t *doc, const char *path)
{
    const char *dot = strrchr(path, '.');
    char up[128];
    if (!dot)
        return doc;
    snprintf(up, sizeof up, "%.*s", (int)(dot - path), path);
    return at(doc, up);
}

static int differ(compare how, json_t *va, json_t *vb)
{
    if (how == PRESENCE)
        return is_none(va) != is_none(vb);
    if (is_none(va) && is_none(vb))
        return 0;
    if (how == NEAR && json_is_number(va) && json_is_number(vb)) {
        double x = json_number_value(va), y = json_number_value(vb);
        return fabs(x - y) > 0.01 * fmax(fabs(x), fabs(y));
    }
    return !json_equal(va, vb);
}

static int add(json_t *out, const char *field, json_t *va, json_t *vb, const char *why)
{
    json_t *d = json_pack("{s:s, s:O, s:O, s:s}", "field", field, "a", va ? va : json_null(), "b",
                          vb ? vb : json_null(), "why", why);
    return d ? json_array_append_new(out, d) : -1;
}

/* One rule at one path: nothing when the holder is absent on either side
 * (the PRESENCE rule of the holder says so once). */
static int check(json_t *a, json_t *b, const char *path, const rule *r, json_t *out)
{
    if (is_none(parent(a, path)) || is_none(parent(b, path)))
        return 0;
    json_t *va = at(a, path), *vb = at(b, path);
    if (!differ(r->how, va, vb))
        return 0;
    if (r->how == PRESENCE && (json_is_object(va) || json_is_object(vb))) {
        /* the whole block would drown the line: say which side has it */
        return add(out, path, json_boolean(!is_none(va)), json_boolean(!is_none(vb)), r->why);
    }
    return add(out, path, va, vb, r->why);
}

static int gpu_count(json_t *a, json_t *b, json_t *out)
{
    size_t na = json_array_size(json_object_get(a, "gpus"));
    size_t nb = json_array_size(json_object_get(b, "gpus"));
    if (na == nb)
        return 0;
    json_t *x = json_integer((json_int_t)na), *y = json_integer((json_int_t)nb);
    int rc = add(out, "gpus.count", x, y, "different number of GPUs");
    json_decref(x);
    json_decref(y);
    return rc;
}

int tc_fingerprint_client_host(json_t *fp)
{
    const char *role = json_string_value(at(fp, "host.role"));
    return role && strcmp(role, "client") == 0;
}

/* One side the client host's and the other not (the server box's, from an
 * agent, or a local run's, which is the box it ran on): everything else
 * is compared across two different machines' roles. Both the client's is
 * no difference between them; the caller warns of each. */
static int host_role(json_t *a, json_t *b, json_t *out)
{
    if (tc_fingerprint_client_host(a) == tc_fingerprint_client_host(b))
        return 0;
    return add(out, "host.role", at(a, "host.role"), at(b, "host.role"),
               "one describes the client host that measured, not the server box (run "
               "--telemetry with no agent answering /env): its CPU, memory and GPUs are not the "
               "server's");
}

/* A "gpus.*.field" rule for every GPU index both fingerprints have. */
static int check_gpus(json_t *a, json_t *b, const rule *r, json_t *out)
{
    size_t na = json_array_size(json_object_get(a, "gpus"));
    size_t nb = json_array_size(json_object_get(b, "gpus"));
    for (size_t i = 0; i < na && i < nb; i++) {
        char path[96];
        snprintf(path, sizeof path, "gpus.%zu.%s", i, r->field + strlen("gpus.*."));
        if (check(a, b, path, r, out))
            return -1;
    }
    return 0;
}

tc_err tc_fingerprint_diff(json_t *a, json_t *b, json_t **out)
{
    json_t *list = json_array();
    if (!list)
        return TC_ERR_NOMEM;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const rule *r = &rules[i];
        int rc;
        if (strcmp(r->field, "gpus") == 0)
            rc = gpu_count(a, b, list);
        else if (strcmp(r->field, "host.role") == 0)
            rc = host_role(a, b, list);
        else if (strncmp(r->field, "gpus.*.", 7) == 0)
            rc = check_gpus(a, b, r, list);
        else
            rc = check(a, b, r->field, r, list);
        if (rc) {
            json_decref(list);
            return TC_ERR_NOMEM;
        }
    }
    *out = list;
    return TC_OK;
}
