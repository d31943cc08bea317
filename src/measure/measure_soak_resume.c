/* Resuming a soak (measure_soak.h): the stored soak found, its plan and
 * next window, and its stored command line as words to run again. */
#include <stdio.h>
#include <string.h>

#include "core/tc_cmdline.h"
#include "measure/measure_soak.h"
#include "views/view_soak.h"

tc_err tc_measure_soak_find(tc_store *st, const char *which, tc_soak_stored *ss, char *err,
                            size_t errlen)
{
    tc_run_info run;
    int found = 0;
    tc_err rc = tc_store_find_run(st, which, &run, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_soak(st, run.id, ss, &found, err, errlen);
    if (rc != TC_OK)
        return rc == TC_ERR_INVALID ? TC_ERR_IO : rc;
    if (!found)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "run %lld is no soak; give a run that `truecost soak` made (see 'truecost "
                       "runs')",
                       (long long)run.id);
    return TC_OK;
}

tc_err tc_measure_soak_resume(tc_store *st, const char *which, tc_soak_config *cfg, char *err,
                              size_t errlen)
{
    tc_soak_stored s;
    tc_err rc = tc_measure_soak_find(st, which, &s, err, errlen);
    if (rc != TC_OK)
        return rc;
    cfg->plan = s.plan;
    cfg->plan.resumes++;
    cfg->next_window = s.n_windows ? s.windows[s.n_windows - 1].idx + 1 : 0;
    if (s.n_windows) /* the time after the last stored window was lost with it */
        cfg->plan.covered_s =
            s.windows[s.n_windows - 1].start_s + s.windows[s.n_windows - 1].span_s;
    tc_soak_stored_free(&s);
    if (cfg->plan.covered_s >= cfg->plan.duration_s)
        return tc_fail(err, errlen, TC_ERR_INVALID, "the soak already covered its %g s",
                       cfg->plan.duration_s);
    return TC_OK;
}

int tc_measure_soak_own_word(const char *w)
{
    if (strcmp(w, "--resume") == 0 || strcmp(w, "--db") == 0)
        return 2;
    return strncmp(w, "--resume=", 9) == 0 || strncmp(w, "--db=", 5) == 0 ||
           strcmp(w, "--json") == 0 || strcmp(w, "--no-progress") == 0;
}

int tc_measure_soak_words(const char *command, char **out, int max, char *buf, size_t len,
                          char *err, size_t errlen)
{
    char *w[256];
    int n = command[0] ? tc_cmdline_words(command, w, 256, buf, len) : -1;
    const char *why = !command[0] ? "its command line was not stored (an older truecost, or too "
                                    "long to keep)"
                      : n < 2 || strcmp(w[0], "truecost") != 0 || strcmp(w[1], "soak") != 0
                          ? "its stored command line does not read back"
                          : NULL;
    int k = 0;
    for (int i = 2, own; !why && i < n && k < max; i += own ? own : 1) {
        if ((own = tc_measure_soak_own_word(w[i])))
            continue;
        if (strstr(w[i], ":***@") || strstr(w[i], "password=***"))
            why = "its URL held a password, which is not stored";
        out[k++] = w[i];
    }
    if (why) {
        tc_fail(err, errlen, TC_ERR_INVALID, "%s: give the URL and load options again", why);
        return -1;
    }
    return k;
}
