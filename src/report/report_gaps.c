/* truecost gaps: the gap table as text. */
#include "report/report_gaps.h"

#include <string.h>

#include "assess/gaps_doc.h"

static const char *source_words(tc_gap_share_source s)
{
    switch (s) {
    case TC_SHARE_DEVICE_TIME:
        return "share of self device time";
    case TC_SHARE_CPU_TIME:
        return "share of self CPU time (no device time recorded)";
    case TC_SHARE_COUNT:
        return "share of calls, not time";
    default:
        return "share as the file gives it";
    }
}

/* At most `width` bytes of s, cut with "..." when longer. */
static void clip(const char *s, int width, char *out, size_t outlen)
{
    size_t n = strlen(s);
    if ((int)n <= width || width < 4)
        snprintf(out, outlen, "%s", s);
    else
        snprintf(out, outlen, "%.*s...", width - 3, s);
}

static void print_rows(FILE *out, const tc_gap_table *t)
{
    fprintf(out, "  %6s  %-44s %-8s %-9s %-11s %s\n", "share", "operator", "dtype", "status",
            "risk", "alternative");
    for (size_t i = 0; i < t->n; i++) {
        const tc_gap_entry *e = &t->rows[i];
        char name[64], dtype[16];
        clip(e->op->name, 44, name, sizeof name);
        clip(e->op->dtype, 8, dtype, sizeof dtype);
        const char *alt = e->support && e->support->alternative[0] ? e->support->alternative : "-";
        char share[16];
        if (e->op->share > 0 && e->op->share < 0.0005)
            snprintf(share, sizeof share, "<0.1%%");
        else
            snprintf(share, sizeof share, "%.1f%%", 100 * e->op->share);
        fprintf(out, "  %6s  %-44s %-8s %-9s %-11s %s\n", share, name, dtype,
                tc_gaps_status_name(e->status), tc_gaps_risk_name(e->risk),
                e->status == TC_GAP_NATIVE ? "-" : alt);
    }
}

/* The notes of every gap: why it is one and what the list says. */
static void print_gap_notes(FILE *out, const tc_gap_table *t)
{
    int header = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tc_gap_entry *e = &t->rows[i];
        const char *notes = e->support ? e->support->notes : "";
        if (e->status == TC_GAP_NATIVE || (!notes[0] && !e->why[0]))
            continue;
        if (!header++)
            fputs("Gaps:\n", out);
        fprintf(out, "  %s (%s, %s risk: %s): %s%s%s\n", e->op->name,
                tc_gaps_status_name(e->status), tc_gaps_risk_name(e->risk), e->risk_category, notes,
                notes[0] && e->why[0] ? "; " : "", e->why);
    }
}

void tc_report_gaps_print(FILE *out, const tc_gap_inventory *inv, const tc_gap_table *t,
                          const char *ops_file, const char *support_file)
{
    fprintf(out, "Operator gaps of %s (%s, %s) against %s\n", ops_file,
            tc_gaps_format_name(inv->format), source_words(inv->source), support_file);
    print_rows(out, t);
    print_gap_notes(out, t);
    fputs("Share by status:\n", out);
    for (int s = 0; s < TC_GAP_N_STATUS; s++)
        fprintf(out, "  %-9s %6.1f%%  %zu operator%s\n", tc_gaps_status_name((tc_gap_status)s),
                100 * t->share[s], t->count[s], t->count[s] == 1 ? "" : "s");
    fprintf(out, "  %-9s %6.1f%%  not operators, or not in the inventory\n", "other",
            100 * t->share_other);
    fprintf(out, "T_op: %.2f .. %.2f .. %.2f person-days (low .. mode .. high)\n", t->t_low,
            t->t_mode, t->t_high);
    fprintf(out, "  %s\n", TC_GAPS_T_OP_RULE);
    char lines[TC_GAPS_MAX_WARNINGS][512];
    int n = tc_gaps_warnings(inv, t, lines);
    for (int i = 0; i < n; i++)
        fprintf(out, "Warning: %s\n", lines[i]);
    fprintf(out, "Note: %s.\n", TC_GAPS_NOTE);
}
