#include "report_doctor.h"

#include "core/tc_json.h"

void tc_report_doctor_text(FILE *out, const tc_doctor_report *r)
{
    static const char *const label[] = {"ok  ", "WARN", "FAIL", "skip"};
    for (int i = 0; i < r->n; i++) {
        const tc_doctor_check *k = &r->checks[i];
        fprintf(out, "%s %s\n", label[k->status], k->title);
        if (k->evidence[0])
            fprintf(out, "     %s\n", k->evidence);
        if (k->fix[0] && k->status != TC_DOCTOR_SKIP)
            fprintf(out, "     fix: %s\n", k->fix);
    }
    fprintf(out, "\n%s\n",
            r->status == 2   ? "Some checks failed: see the fixes above."
            : r->status == 1 ? "Warnings only: see the fixes above."
                             : "Everything checked is fine.");
}

json_t *tc_report_doctor_json(const tc_doctor_report *r)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->n; i++) {
        const tc_doctor_check *k = &r->checks[i];
        /* evidence quotes the host's own files: not always UTF-8 */
        json_array_append_new(
            arr, json_pack("{s:s, s:o, s:s, s:o, s:o}", "id", k->id, "title",
                           tc_json_string(k->title), "status", tc_doctor_status_name(k->status),
                           "evidence", tc_json_string(k->evidence), "fix", tc_json_string(k->fix)));
    }
    return json_pack("{s:o, s:i}", "checks", arr, "status", r->status);
}
