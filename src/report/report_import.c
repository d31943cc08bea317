/* The import summary, as text and as JSON. */
#include "report_import.h"

tc_err tc_report_import_text(FILE *out, const char *from, const char *to,
                             const tc_store_import_stats *st)
{
    fprintf(out, "imported %zu run%s (%lld requests, %lld telemetry samples) from %s into %s\n",
            st->copied, st->copied == 1 ? "" : "s", (long long)st->requests, (long long)st->samples,
            from, to);
    if (st->present)
        fprintf(out, "%zu run%s already there (same uuid): left as they were\n", st->present,
                st->present == 1 ? " was" : "s were");
    if (st->running)
        fprintf(out,
                "%zu run%s still running in the source: not imported; import again once it "
                "has ended\n",
                st->running, st->running == 1 ? " is" : "s are");
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

json_t *tc_report_import_json(const char *from, const char *to, const tc_store_import_stats *st)
{
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "from", from, "to", to,
                     "runs_in_source", (json_int_t)st->seen, "imported", (json_int_t)st->copied,
                     "already_present", (json_int_t)st->present, "still_running",
                     (json_int_t)st->running, "requests", (json_int_t)st->requests, "samples",
                     (json_int_t)st->samples);
}
