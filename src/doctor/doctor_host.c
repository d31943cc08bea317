/* Checks beyond the GPU drivers: CPU energy (RAPL), the local inference
 * servers, and truecost's own database and telemetry sources. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_probe.h"
#include "doctor_internal.h"
#include "store/store.h"
#include "telemetry/telem_set.h"
#include "telemetry/telem_sysfs.h"

void tc_doctor_check_cpu(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "cpu.rapl", "CPU energy (RAPL) readable");
    char dir[1024];
    int *idx = NULL, n = 0, bad = 0;
    tc_doctor_path(c, dir, sizeof dir, "/sys/class/powercap");
    if (tc_telem_scan_indexed(dir, "intel-rapl:", &idx, &n) != TC_OK || n == 0) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_evidence(
            k, "no /sys/class/powercap/intel-rapl:*: CPU energy cannot be measured here");
        free(idx);
        return;
    }
    for (int i = 0; i < n; i++) {
        char path[1100], val[64];
        int eno = 0;
        snprintf(path, sizeof path, "%s/intel-rapl:%d/energy_uj", dir, idx[i]);
        if (tc_root_read(NULL, path, val, sizeof val, &eno) == TC_OK) {
            tc_doctor_evidence(k, "intel-rapl:%d/energy_uj readable", idx[i]);
            continue;
        }
        bad = 1;
        tc_doctor_evidence(k, "intel-rapl:%d/energy_uj: %s", idx[i], strerror(eno ? eno : EIO));
    }
    free(idx);
    if (!bad)
        return;
    tc_doctor_set_status(k, TC_DOCTOR_WARN);
    tc_doctor_fix(k, "energy_uj is readable by root only since Linux 5.10: sudo chmod a+r "
                     "/sys/class/powercap/intel-rapl:*/energy_uj (until reboot; a udev rule or "
                     "tmpfiles.d line makes it last), or run truecost as root");
}

static void describe(tc_doctor_check *k, const char *url, const tc_probe *p)
{
    tc_doctor_evidence(k, "%s: %s%s%s%s, APIs:%s%s%s, %d model%s%s", url,
                       tc_server_kind_name(p->kind), p->server_version[0] ? " " : "",
                       p->server_version, p->simulated ? " (SIMULATED)" : "",
                       (p->speaks & TC_PROBE_OLLAMA) ? " ollama" : "",
                       (p->speaks & TC_PROBE_LLAMACPP) ? " llamacpp" : "",
                       (p->speaks & TC_PROBE_OPENAI) ? " openai" : "", p->n_models,
                       p->n_models == 1 ? "" : "s", p->n_models ? "" : " (none)");
}

/* Probes one URL into the two checks; returns 1 when a server answered. */
static int probe_one(tc_doctor_ctx *c, const char *url, tc_probe *p, tc_doctor_check *k,
                     tc_doctor_check *m)
{
    tc_endpoint ep;
    char err[512];
    double t = c->cfg->server_timeout_s > 0 ? c->cfg->server_timeout_s : 0.5;
    if (tc_endpoint_parse(url, &ep, err, sizeof err) != TC_OK) {
        tc_doctor_evidence(k, "%s: %s", url, err);
        return 0;
    }
    tc_err rc = tc_probe_server(&ep, NULL, t, p, err, sizeof err);
    if (rc == TC_ERR_NET)
        return 0;
    if (rc != TC_OK) {
        tc_doctor_evidence(k, "%s answers HTTP but is not an inference server", url);
        return 0;
    }
    describe(k, url, p);
    if (p->n_models == 0) {
        tc_doctor_set_status(m, TC_DOCTOR_WARN);
        tc_doctor_evidence(m, "%s lists no models", url);
    } else {
        tc_doctor_evidence(m, "%s: %s%s", url, p->models[0], p->n_models > 1 ? ", ..." : "");
    }
    return 1;
}

void tc_doctor_check_server(tc_doctor_ctx *c)
{
    static const char *const local[] = {"http://127.0.0.1:11434", "http://127.0.0.1:8000",
                                        "http://127.0.0.1:8080", "http://127.0.0.1:30000", NULL};
    tc_doctor_check *k = tc_doctor_add(c, "server.local", "a local inference server answers");
    tc_doctor_check *m = tc_doctor_add(c, "server.models", "the servers list models");
    if (c->cfg->no_server) {
        tc_doctor_set_status(k, TC_DOCTOR_SKIP);
        tc_doctor_set_status(m, TC_DOCTOR_SKIP);
        tc_doctor_evidence(k, "network checks turned off");
        tc_doctor_evidence(m, "network checks turned off");
        return;
    }
    const char *const *urls = c->cfg->server_urls ? c->cfg->server_urls : local;
    tc_probe p = {0};
    int answered = 0;
    for (int i = 0; urls[i]; i++) {
        answered += probe_one(c, urls[i], &p, k, m);
        tc_probe_free(&p);
    }
    if (m && m->status == TC_DOCTOR_WARN)
        tc_doctor_fix(m, "pull or load a model (ollama pull MODEL; vllm serve MODEL)");
    if (answered)
        return;
    tc_doctor_set_status(k, TC_DOCTOR_WARN);
    tc_doctor_set_status(m, TC_DOCTOR_SKIP);
    if (c->cfg->server_urls)
        tc_doctor_evidence(k, "no inference server answers at the URL(s) given");
    else
        tc_doctor_evidence(
            k, "no inference server answers on the usual local ports (Ollama 11434, vLLM 8000, "
               "llama.cpp 8080, SGLang 30000)");
    tc_doctor_evidence(m, "no server answered");
    tc_doctor_fix(k,
                  "start one (ollama serve; vllm serve MODEL; llama-server -m FILE), or give its "
                  "URL to truecost run");
}

/* The nearest existing directory at or above path's parent into dir. */
static void existing_parent(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    char *slash;
    while ((slash = strrchr(dir, '/'))) {
        if (slash == dir) {
            dir[1] = '\0';
            return;
        }
        *slash = '\0';
        if (access(dir, F_OK) == 0)
            return;
    }
    snprintf(dir, len, ".");
}

/* A PostgreSQL store (a postgresql:// URL): reachable, and truecost's or
 * empty. The URL is shown without its password. */
static void check_store_pg(tc_doctor_check *k, const char *url)
{
    char shown[TC_STORE_PATH_MAX], err[1024];
    tc_store_redact(url, shown, sizeof shown);
    tc_store *s = NULL;
    tc_err e = tc_store_open(url, TC_STORE_READ, &s, err, sizeof err);
    tc_store_close(s);
    if (e == TC_OK) {
        tc_doctor_evidence(k, "PostgreSQL database %s answers and holds truecost's tables", shown);
    } else if (e == TC_ERR_NOTFOUND) {
        tc_doctor_evidence(k,
                           "PostgreSQL database %s answers; no truecost tables yet (the first "
                           "run creates them)",
                           shown);
    } else {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_evidence(k, "%s", err);
        tc_doctor_fix(k, "check the URL, the server and the user's rights, or set TRUECOST_DB to "
                         "a file path");
    }
}

static void check_store(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "truecost.store", "results database location writable");
    char path[TC_STORE_PATH_MAX], dir[TC_STORE_PATH_MAX], err[512];
    if (c->cfg->store_path)
        snprintf(path, sizeof path, "%s", c->cfg->store_path);
    else if (tc_store_default_path(path, sizeof path, err, sizeof err) != TC_OK) {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_evidence(k, "%s", err);
        tc_doctor_fix(k, "set TRUECOST_DB=PATH (or HOME), or pass --db PATH to truecost run");
        return;
    }
    if (tc_store_is_url(path)) {
        check_store_pg(k, path);
        return;
    }
    if (access(path, F_OK) == 0) {
        int w = access(path, W_OK) == 0;
        tc_doctor_evidence(k, "%s exists and is %swritable", path, w ? "" : "not ");
        if (!w) {
            tc_doctor_set_status(k, TC_DOCTOR_FAIL);
            tc_doctor_fix(k, "fix its owner (sudo chown $USER %s) or set TRUECOST_DB=PATH", path);
        }
        return;
    }
    existing_parent(path, dir, sizeof dir);
    int w = access(dir, W_OK | X_OK) == 0;
    tc_doctor_evidence(k, "%s does not exist yet; %s is %swritable", path, dir, w ? "" : "not ");
    if (!w) {
        tc_doctor_set_status(k, TC_DOCTOR_FAIL);
        tc_doctor_fix(k, "set TRUECOST_DB to a writable place, or pass --db PATH to truecost run");
    }
}

static void check_telemetry(tc_doctor_ctx *c)
{
    tc_doctor_check *k = tc_doctor_add(c, "truecost.telemetry", "telemetry sources found");
    char sys[1024], notes[1024] = "", err[512] = "";
    tc_telem_config tc = {0};
    tc.sysfs_root = tc_doctor_path(c, sys, sizeof sys, "/sys");
    tc.opt_root = c->root;
    tc.nvml_lib = c->cfg->nvml_lib;
    tc.rocm_lib = c->cfg->rocm_lib;
    if (strcmp(c->root, "/") != 0) {
        /* The command-line fallbacks would read this host, not the tree. */
        tc.nvidia_smi = "/nonexistent/nvidia-smi";
        tc.rocm_smi = "/nonexistent/rocm-smi";
    }
    tc_telem_set *s = NULL;
    if (tc_telem_set_open("auto", &tc, &s, notes, sizeof notes, err, sizeof err) != TC_OK) {
        tc_doctor_set_status(k, TC_DOCTOR_WARN);
        tc_doctor_evidence(k, "%s", err);
        return;
    }
    int n = tc_telem_set_count(s);
    for (int i = 0; i < n; i++)
        tc_doctor_evidence(k, "%s: %s", tc_telem_set_backend(s, i),
                           tc_telem_set_device(s, i)->name);
    tc_telem_set_close(s);
    if (n > 0)
        return;
    tc_doctor_set_status(k, TC_DOCTOR_WARN);
    for (char *line = notes; *line;) {
        size_t len = strcspn(line, "\n");
        tc_doctor_evidence(k, "%.*s", (int)len, line);
        line += len + (line[len] == '\n');
    }
    tc_doctor_fix(k,
                  "fix the GPU and RAPL checks above; without a sensor truecost run still measures "
                  "latency and throughput, but not energy");
}

void tc_doctor_check_truecost(tc_doctor_ctx *c)
{
    check_store(c);
    check_telemetry(c);
}
