/* truecost env's documents: the fingerprint as labelled lines for a
 * terminal, the JSON that --diff reads back, and the differences. */
#include "report_env.h"

#include "analysis/env_diff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static json_t *at(json_t *doc, const char *path)
{
    char key[64];
    while (doc && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        doc = json_object_get(doc, key);
        path += n + (path[n] == '.');
    }
    return doc;
}

/* The string, or the number as text, at path; "n/a" when null/missing. */
static const char *text(json_t *doc, const char *path, char *buf, size_t len)
{
    json_t *v = at(doc, path);
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%g", json_real_value(v));
    else
        snprintf(buf, len, "n/a");
    return buf;
}

static const char *gib(json_t *v, char *buf, size_t len)
{
    if (!json_is_number(v))
        return "n/a";
    snprintf(buf, len, "%.1f GiB", json_number_value(v) / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

static void print_host(json_t *fp, FILE *out)
{
    char a[64], b[64], c[64], d[64];
    fprintf(out, "OS        %s (version %s), kernel %s, virtualisation: %s\n",
            text(fp, "os.name", a, sizeof a), text(fp, "os.version", b, sizeof b),
            text(fp, "os.kernel", c, sizeof c), text(fp, "os.virtualisation", d, sizeof d));
    fprintf(out, "CPU       %s: %s sockets, %s cores, %s threads\n",
            text(fp, "cpu.model", a, sizeof a), text(fp, "cpu.sockets", b, sizeof b),
            text(fp, "cpu.cores", c, sizeof c), text(fp, "cpu.threads", d, sizeof d));
    fprintf(out, "Memory    %s\n", gib(json_object_get(fp, "memory_bytes"), a, sizeof a));
    json_t *rot = at(fp, "disk.rotational");
    fprintf(out, "Disk      %s on %s (%s, mounted on %s): %s\n", text(fp, "disk.path", a, sizeof a),
            text(fp, "disk.device", b, sizeof b), text(fp, "disk.fstype", c, sizeof c),
            text(fp, "disk.mount", d, sizeof d),
            json_is_true(rot)    ? "rotational (HDD)"
            : json_is_false(rot) ? "SSD"
                                 : "type n/a");
}

static void print_gpus(json_t *fp, FILE *out)
{
    size_t i;
    json_t *g;
    char a[64], b[64], c[64], d[64], e[64], f[64];
    if (json_array_size(json_object_get(fp, "gpus")) == 0)
        fputs("GPU       none found\n", out);
    json_array_foreach(json_object_get(fp, "gpus"), i, g)
    {
        json_t *w = json_object_get(g, "power_limit_w");
        if (json_is_number(w))
            snprintf(f, sizeof f, "%g W", json_number_value(w));
        fprintf(out, "GPU %-5zu %s %s, %s, driver %s, runtime %s, power limit %s\n", i,
                text(g, "vendor", a, sizeof a), text(g, "name", b, sizeof b),
                gib(json_object_get(g, "memory_bytes"), c, sizeof c),
                text(g, "driver", d, sizeof d), text(g, "runtime", e, sizeof e),
                json_is_number(w) ? f : "n/a");
    }
}

static void print_server(json_t *fp, FILE *out)
{
    char a[64], b[64], c[64], d[64], e[64];
    json_t *s = json_object_get(fp, "server");
    if (!json_is_object(s)) {
        fputs("Server    none\n", out);
        return;
    }
    fprintf(out, "Server    %s: %s %s, API %s%s\n", text(s, "url", a, sizeof a),
            text(s, "kind", b, sizeof b), text(s, "version", c, sizeof c),
            text(s, "api", d, sizeof d),
            json_is_true(json_object_get(s, "simulated")) ? " (SIMULATED)" : "");
    json_t *m = json_object_get(s, "model");
    if (!json_is_object(m)) {
        fputs("Model     n/a (name one with --model)\n", out);
        return;
    }
    fprintf(out, "Model     %s: family %s, %s parameters, quantisation %s, context %s\n",
            text(m, "name", a, sizeof a), text(m, "family", b, sizeof b),
            text(m, "parameter_size", c, sizeof c), text(m, "quantization_level", d, sizeof d),
            text(m, "context_length", e, sizeof e));
    if (json_is_true(json_object_get(m, "loaded")))
        fprintf(out, "          loaded: %s, %s in VRAM\n",
                gib(json_object_get(m, "size_bytes"), a, sizeof a),
                gib(json_object_get(m, "size_vram_bytes"), b, sizeof b));
}

void tc_report_env_text(FILE *out, json_t *fp)
{
    char a[64], b[64], c[64];
    print_host(fp, out);
    print_gpus(fp, out);
    print_server(fp, out);
    fprintf(out, "truecost  %s (%s), built by %s%s%s\n", text(fp, "truecost.version", a, sizeof a),
            text(fp, "truecost.git", b, sizeof b), text(fp, "truecost.build.compiler", c, sizeof c),
            json_is_true(at(fp, "truecost.build.optimized")) ? ", optimised" : ", not optimised",
            json_is_true(at(fp, "truecost.build.asan")) ? ", with AddressSanitizer (slower)" : "");
}

tc_err tc_report_env_json(FILE *out, const json_t *doc, char *err, size_t errlen)
{
    if (!out || !doc)
        return tc_fail(err, errlen, TC_ERR_INVALID, "nothing to write");
    errno = 0;
    if (json_dumpf(doc, out, JSON_INDENT(2)) != 0 || fputc('\n', out) == EOF || fflush(out) == EOF)
        return tc_fail(err, errlen, TC_ERR_IO, "writing JSON: %s",
                       errno ? strerror(errno) : "write failed");
    return TC_OK;
}

/* A difference's value: a string as it is, null as n/a, else its JSON. */
static void print_value(FILE *out, json_t *v)
{
    char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    fputs(json_is_string(v) ? json_string_value(v)
          : json_is_null(v) ? "n/a"
          : text            ? text
                            : "?",
          out);
    free(text);
}

/* A side that describes the client host, not the server box: said after
 * the differences, as compare says it. */
static void client_host_warnings(FILE *out, const tc_env_pair *p, const char *a_name,
                                 const char *b_name)
{
    char line[1200];
    if (tc_fingerprint_client_host(p->a)) {
        tc_report_env_client_warning(line, sizeof line, "A", a_name);
        fprintf(out, "WARNING %s\n", line);
    }
    if (tc_fingerprint_client_host(p->b)) {
        tc_report_env_client_warning(line, sizeof line, "B", b_name);
        fprintf(out, "WARNING %s\n", line);
    }
}

void tc_report_env_client_warning(char *buf, size_t len, const char *side, const char *name)
{
    snprintf(buf, len,
             "%s=%s is the client host's environment, not the server's (no agent answered /env "
             "at run --telemetry): its CPU, memory and GPUs are not the server box's",
             side, name);
}

void tc_report_env_diff_text(FILE *out, const tc_env_pair *p, const char *a_name,
                             const char *b_name)
{
    size_t i;
    json_t *d;
    if (p->n == 0) {
        fprintf(out, "no differences that matter between %s and %s\n", a_name, b_name);
        client_host_warnings(out, p, a_name, b_name);
        return;
    }
    fprintf(out, "%zu difference%s between A=%s and B=%s:\n", p->n, p->n == 1 ? "" : "s", a_name,
            b_name);
    json_array_foreach(p->diffs, i, d)
    {
        fprintf(out, "  %s: A ", json_string_value(json_object_get(d, "field")));
        print_value(out, json_object_get(d, "a"));
        fputs(", B ", out);
        print_value(out, json_object_get(d, "b"));
        fprintf(out, "\n    %s\n", json_string_value(json_object_get(d, "why")));
    }
    client_host_warnings(out, p, a_name, b_name);
}
