/* The message, JSON, store and show helpers of every command's work (app.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "app/app.h"
#include "core/tc_json.h"
#include "core/tc_outfile.h"

void tc_app_error(const char *fmt, ...)
{
    va_list ap;
    fputs("truecost: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int tc_app_emit_json(const char *cmd, json_t *doc)
{
    char err[256];
    if (tc_json_print(stdout, doc, err, sizeof err) == TC_OK)
        return TC_EXIT_OK;
    tc_app_error("%s: %s", cmd, err);
    return TC_EXIT_RUNTIME;
}

int tc_app_check(tc_err rc, const char *err)
{
    if (rc == TC_OK)
        return TC_EXIT_OK;
    tc_app_error("%s", err && err[0] ? err : tc_strerror(rc));
    return TC_EXIT_RUNTIME;
}

int tc_app_open_store(const char *db, tc_store_mode mode, tc_store **out)
{
    char path[TC_STORE_PATH_MAX], err[1024];
    *out = NULL;
    if (!db) {
        if (tc_store_default_path(path, sizeof path, err, sizeof err) != TC_OK) {
            tc_app_error("%s", err);
            return TC_EXIT_RUNTIME;
        }
        db = path;
    }
    if (tc_store_open(db, mode, out, err, sizeof err) != TC_OK) {
        tc_app_error("%s", err);
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

tc_show tc_app_show_on(tc_show_form form)
{
    return (tc_show){.out = stdout,
                     .form = form,
                     .color = getenv("NO_COLOR") == NULL,
                     .terminal = isatty(STDOUT_FILENO)};
}

int tc_app_shown(tc_err rc, const tc_show *s, const char *err)
{
    for (int i = 0; i < s->n_notes; i++)
        tc_app_error("%s", s->notes[i]);
    return tc_app_check(rc, err);
}

int tc_app_show_run(tc_store *st, const tc_run_info *run, tc_show_form form, double max_error_rate,
                    const tc_slo *slo)
{
    char err[512];
    tc_show s = tc_app_show_on(form);
    int code = tc_app_shown(tc_report_show_run(st, run, slo, &s, err, sizeof err), &s, err);
    if (code || s.error_rate <= max_error_rate)
        return code;
    tc_app_error("%lld of %lld measured requests failed (%.1f%%), above --max-error-rate %.3g",
                 (long long)s.failed, (long long)s.measured, s.error_rate * 100, max_error_rate);
    return TC_EXIT_CHECK;
}

int tc_app_show_group(tc_store *st, const tc_runset *set, int json)
{
    char err[512];
    tc_show s = tc_app_show_on(json ? TC_SHOW_JSON : TC_SHOW_TABLE);
    return tc_app_shown(tc_report_show_group(st, set, &s, err, sizeof err), &s, err);
}

int tc_app_exit_for(tc_err rc)
{
    return rc == TC_ERR_IO || rc == TC_ERR_NOMEM || rc == TC_ERR_NOTFOUND || rc == TC_ERR_BUSY
               ? TC_EXIT_RUNTIME
               : TC_EXIT_USAGE;
}

int tc_app_load_profile(const char *path, tc_cost_profile *p)
{
    char err[1024];
    if (!path || tc_cost_profile_load(path, p, err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("%s", err);
    return TC_EXIT_USAGE;
}

int tc_app_write_port_file(const char *path, unsigned port)
{
    char text[16], err[512];
    snprintf(text, sizeof text, "%u\n", port);
    if (!path || tc_outfile_write(path, text, err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("--port-file %s", err);
    return TC_EXIT_RUNTIME;
}
